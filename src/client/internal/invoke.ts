/**
 * One tool's call path, prepared when the map is projected rather than on every call.
 *
 * Everything a call of a tool does that does not depend on its arguments — which link serves it,
 * the names its errors carry, whether the policy gates it, how its answer is read, its argument
 * checker in its plain form — is settled once per projection; a call then checks its arguments,
 * asks the policy, sends, and reads the answer, in that order, with nothing built twice.
 */
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Approval from "../../core/Approval.ts"
import { checkerOf } from "../../core/internal/jsonSchemaCompile.ts"
import * as CallResult from "../CallResult.ts"
import type * as Config from "../Config.ts"
import { type CallError, InvalidArguments, ToolQuarantined } from "../Errors.ts"
import * as Policy from "../Policy.ts"
import type * as Catalog from "../Catalog.ts"
import type * as Link from "./link.ts"
import { withoutNulls } from "./nulls.ts"

/** A prepared call: the arguments as given and the call's own deadline, if it has one. */
export type Run = (args: unknown, timeoutMs: number | undefined) => Effect.Effect<CallResult.Result, CallError>

/** A tool in the map with the link that serves it. */
export type Located = Catalog.Entry & { readonly link: Link.Link }

/** What every prepared call of a toolset shares. */
export interface Env {
  readonly options: Config.Options<any>
  readonly approval: Option.Option<Approval.Approval["Service"]>
}

// The gated send: the policy first (when there is one), then the request, its answer read.
const sender = (name: string, found: Located, env: Env) => {
  const { link, output, tool } = found
  const about: CallResult.Call = { name, server: tool.server, tool: tool.tool }
  const read = output === undefined
    ? (raw: unknown) => CallResult.adapt(raw, about)
    : (raw: unknown) =>
      Effect.flatMap(CallResult.adapt(raw, about), (result) => CallResult.conform(result, output, about))
  const fallback = link.wired.timeoutMs
  const send = (checked: unknown, timeoutMs: number | undefined) =>
    Effect.flatMap(link.call(name, tool.tool, checked, timeoutMs ?? fallback), read)
  const policy = env.options.policy
  if (policy === undefined) return send
  const context = { approval: env.approval, description: tool.description }
  return (checked: unknown, timeoutMs: number | undefined) =>
    Effect.andThen(
      Policy.gate(policy, { toolName: name, server: tool.server, tool: tool.tool, args: checked }, context),
      send(checked, timeoutMs)
    )
}

/**
 * The call of the tool projected as `name`: refused at once when quarantined; otherwise its
 * arguments (absent or `null` read as `{}`, and a `null` the schema does not admit under an optional
 * property read as that property left out: `nulls.ts`) checked against the tool's input schema, then
 * gated and sent.
 */
export const prepare = (name: string, found: Located, env: Env): Run => {
  const { tool } = found
  if (found.quarantined === true)
    return () => Effect.fail(new ToolQuarantined({ name, server: tool.server, tool: tool.tool }))
  const gated = sender(name, found, env)
  const check = found.check
  const refuse = (error: { readonly message: string }) => new InvalidArguments({ name, reason: error.message })
  const schema = tool.inputSchema
  const given = (args: unknown) => args === undefined || args === null ? {} : withoutNulls(schema, args)
  if (check === undefined) return (args, timeoutMs) => gated(given(args), timeoutMs)
  const checkNow = checkerOf(check)
  if (checkNow === undefined) {
    return (args, timeoutMs) =>
      Effect.flatMap(Effect.mapError(check(given(args)), refuse), (checked) => gated(checked, timeoutMs))
  }
  return (args, timeoutMs) => {
    const present = given(args)
    const error = checkNow(present)
    return error === undefined ? gated(present, timeoutMs) : Effect.fail(refuse(error))
  }
}
