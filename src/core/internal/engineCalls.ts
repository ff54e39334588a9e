/**
 * A tool call through the engine: the name looked up in the roster, the input decoded, the call
 * dispatched over the pool and its answer framed. Apart from `Engine.ts` so the service reads as what
 * it offers, and the hot path of every call sits in one place.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Client from "../../surface/Client.ts"
import type * as Bundle from "../Bundle.ts"
import type * as Caller from "../Caller.ts"
import type * as ConnectionPool from "../ConnectionPool.ts"
import { Retired, UnknownTool } from "../EngineError.ts"
import type * as InputError from "../InputError.ts"
import * as Reads from "../Reads.ts"
import type * as Roster from "../Roster.ts"
import * as ToolFailure from "../ToolFailure.ts"
import * as ToolResult from "../ToolResult.ts"
import { refusalOf } from "./declaredError.ts"
import { entrySpan } from "./span.ts"

/** What a call needs of the engine it runs in. */
export interface CallEnv {
  readonly roster: Roster.Roster
  readonly pool: ConnectionPool.Pool<Bundle.Clients>
}

// Traced by hand rather than by `Effect.fn`: this is every tool call's path, and `Effect.fn` takes a
// stack trace per call (see the bench); the span is the same, provided in one step (internal/span.ts).
// (Every closure built per call is one more allocation per call: what needs nothing of the call's
// own is built once, here.)
/** Decode `args` for the named tool and call it; a failed call is an `isError` result, never a failure. */
export const call =
  (env: CallEnv) =>
  (name: string, args: unknown): Effect.Effect<ToolResult.ToolResult, UnknownTool | Retired, Caller.Services> =>
    entrySpan(
      "Engine.call",
      { kind: "server", attributes: { tool: name } },
      Effect.flatMap(
        env.roster.lookupTool(name),
        (found): Effect.Effect<ToolResult.ToolResult, UnknownTool | Retired, Caller.Services> => {
          switch (found._tag) {
            case "Unknown":
              return Effect.fail(new UnknownTool({ name }))
            case "Retired":
              return Effect.fail(new Retired({ tombstone: found.tombstone }))
            case "Served": {
              const tool = found.tool
              return Effect.matchEffect(tool.input.decode(args), {
                onFailure: refusedInput,
                onSuccess: (input) => invoke(env, tool, input)
              })
            }
          }
        }
      )
    )

const refusedInput = (error: InputError.InputError): Effect.Effect<ToolResult.ToolResult> =>
  Effect.succeed(ToolResult.failure(error))

// A procedure's call on its client, its answer in its declared wire form (a Date as its ISO string, …),
// and a failure it declares as a refusal with that failure's declared form as its detail.
const dispatch = (
  client: Bundle.Served,
  target: Extract<Bundle.Tool["target"], { readonly _tag: "Procedure" }>,
  input: unknown
) =>
  Effect.flatMap(Client.call(client, target.ns, target.verb, input), target.encode).pipe(
    Effect.mapError(refusalOf(target.procedure.error))
  )

// The client of a sibling (or the core), or the link fault of a factory that gave none.
const clientIn = (clients: Bundle.Clients, sibling: string | undefined): Bundle.Served | undefined =>
  sibling === undefined ? clients.core : Object.hasOwn(clients.clients, sibling) ? clients.clients[sibling] : undefined

// A defect (a throw, a bug) is told to the operator on the log and to the agent as a sentence with
// the log line's id, never its own text; a declared failure passes as it is. Rendering runs inside,
// so a throwing render is a defect like any other. One map and one catch per call, as `frame` takes.
const framed = <A, E, R>(
  tool: Bundle.Tool,
  effect: Effect.Effect<A, E, R>,
  render: ((out: A) => ToolResult.ToolResult) | undefined
): Effect.Effect<ToolResult.ToolResult, never, R> =>
  Effect.catchCause(
    Effect.map(effect, render ?? ToolResult.ok),
    (cause) => Effect.map(ToolFailure.toldOf(tool.name, cause), ToolResult.failure)
  )

/** Call a served tool with already-decoded input. */
export const invoke = (
  env: CallEnv,
  tool: Bundle.Tool,
  input: unknown
): Effect.Effect<ToolResult.ToolResult, never, Caller.Services> => {
  const target = tool.target
  switch (target._tag) {
    case "Procedure": {
      return framed(
        tool,
        env.pool.use((clients) => {
          const client = clientIn(clients, tool.sibling)
          return client === undefined
            ? Effect.flatMap(Reads.clientOf(clients, tool.sibling), (found) => dispatch(found, target, input))
            : dispatch(client, target, input)
        }),
        undefined
      )
    }
    case "SiblingTool":
      return framed(
        tool,
        env.pool.use((clients) =>
          Effect.flatMap(Reads.clientOf(clients, tool.sibling), (client) => target.tool.handler(input, client))
        ),
        target.tool.render
      )
    case "RootTool":
      return framed(tool, env.pool.use((clients) => target.tool.handler(input, clients)), target.tool.render)
  }
}
