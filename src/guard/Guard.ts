/**
 * A guard: an upstream MCP server's tools, served only as its guard file grants them, every call
 * down one path that decides, audits and forwards.
 *
 * An agent should reach a server somebody else wrote only through what a person reviewed and
 * granted. The guard connects the upstream through the client toolset (its transports, deadlines
 * and containment), serves the granted tools as the lock recorded them with the file's
 * restrictions applied, and runs every call — from an MCP host or from a shell — through
 * `execute`: a tool not granted, a tool whose live definition moved from the lock, arguments
 * outside the restricted schema, or arguments a request guard (`fail-when`) of the file refuses are
 * refused there, in one sentence; anything else is recorded, then sent. Each call, whatever its
 * fate, is in the audit (see `Audit` for its rows). One path means the two doors cannot drift
 * apart.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Identity from "../core/Identity.ts"
import type * as CallResult from "../client/CallResult.ts"
import type * as Catalog from "../client/Catalog.ts"
import type * as McpConfig from "../client/Config.ts"
import type { WiringError } from "../client/Errors.ts"
import * as McpToolset from "../client/McpToolset.ts"
import { type InputError, withoutValues } from "../core/InputError.ts"
import * as Json from "../core/Json.ts"
import * as ToolResult from "../core/ToolResult.ts"
import * as McpConsole from "../mcp/console/Console.ts"
import * as Audit from "./Audit.ts"
import * as GuardError from "./GuardError.ts"
import * as GuardFile from "./GuardFile.ts"
import * as GuardLock from "./GuardLock.ts"
import * as Grants from "./Grants.ts"
import * as Rows from "./internal/rows.ts"

/**
 * The door a call came through, as the audit records it.
 *
 * @example
 * ```ts
 * import type { Guard } from "effect-surface/guard"
 * const door: Guard.Door = "cli"
 * ```
 *
 * @since 0.1.0
 */
export type Door = "mcp" | "cli"

/**
 * How the guard connects its upstream: the client toolset's options that make sense for one server.
 *
 * @example
 * ```ts
 * import type { Guard } from "effect-surface/guard"
 * const options: Guard.Options = { timeoutMs: 30_000, clientInfo: { name: "guard", version: "1.0.0" } }
 * ```
 *
 * @since 0.1.0
 */
export type Options = Pick<
  McpConfig.Options,
  "clientInfo" | "timeoutMs" | "connectTimeoutMs" | "stdio" | "onDiagnostic"
>

/**
 * A running guard: its file, the tools it serves, and the one path every call takes.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Guard } from "effect-surface/guard"
 * const program = Effect.gen(function*() {
 *   const guard = yield* Guard.Guard
 *   return yield* guard.execute("cli", "get-sum", { a: 1, b: 2 })
 * })
 * ```
 *
 * @since 0.1.0
 */
export class Guard extends Context.Service<Guard, {
  readonly file: GuardFile.GuardFile
  readonly tools: ReadonlyArray<Grants.Granted>
  /**
   * Decide, forward and audit one call; a refusal or a failure is an `isError` result. The row names
   * `caller` (default the local one).
   */
  readonly execute: (
    door: Door,
    tool: string,
    args: unknown,
    caller?: Identity.Principal
  ) => Effect.Effect<ToolResult.ToolResult>
}>()("effect-surface/Guard") {}

/**
 * What can stop a guard from starting: its file, its lock, a grant it cannot keep, its audit, or
 * its upstream's entry.
 *
 * @example
 * ```ts
 * import type { Guard } from "effect-surface/guard"
 * const told = (error: Guard.StartError) => error.message
 * ```
 *
 * @since 0.1.0
 */
export type StartError =
  | GuardFile.GuardFileError
  | GuardLock.LockError
  | GuardError.LockMismatch
  | Grants.GrantError
  | Audit.AuditError
  | WiringError

const Block = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literals(["image", "audio"]), data: Schema.String, mimeType: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("resource"),
    resource: Schema.Union([
      Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), text: Schema.String }),
      Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), blob: Schema.String })
    ])
  })
])
const decodeBlock = Schema.decodeUnknownResult(Block)

// The upstream's answer in the core's shape: a block the core has no shape for (a resource link)
// travels as its JSON text rather than being dropped.
const answerOf = (result: CallResult.Result): ToolResult.ToolResult => {
  const content = result.content.map((block): ToolResult.ToolContent =>
    Result.getOrElse(decodeBlock(block), () => ToolResult.text(JSON.stringify(block)))
  )
  const structured = result.structuredContent === undefined ? undefined
    : Result.getOrUndefined(Json.normalize(result.structuredContent))
  return structured === undefined ? { content } : { content, structuredContent: Json.toStructured(structured) }
}

// The caller is told the whole sentence; the row keeps none of the values it quotes.
const refused = (refusal: GuardError.Refusal | InputError): Rows.Verdict => ({
  _tag: "Deny",
  answer: ToolResult.failure(refusal),
  reason: refusal._tag === "InputError" ? withoutValues(refusal) : refusal.message
})

interface Env {
  readonly file: GuardFile.GuardFile
  readonly granted: ReadonlyMap<string, Grants.Granted>
  readonly toolset: McpToolset.Toolset
  readonly audit: Audit.AuditLog["Service"]
}

// The upstream's live definition of a tool, under its projected name.
const liveOf = (env: Env, tool: string) =>
  Effect.map(
    env.toolset.tools,
    (tools) => [...tools.values()].find((t) => t.server === env.file.upstream.name && t.tool === tool)
  )

// A live tool as the lock holds one: what drift compares.
const definitionOf = (live: Catalog.Tool): GuardLock.Definition => ({
  description: live.description,
  inputSchema: live.inputSchema,
  title: live.title,
  annotations: live.annotations,
  _meta: live.meta
})

const send = (env: Env, name: string, args: unknown): Effect.Effect<Rows.Sent> =>
  Effect.map(Effect.result(env.toolset.call(name, args)), (sent) =>
    Result.isSuccess(sent)
      ? { outcome: "ok", answer: answerOf(sent.success) }
      : { outcome: "error", answer: ToolResult.failure(sent.failure) })

// Nothing is sent while deciding: an allowed call carries the send that `record` runs once its
// row is written.
const decide = (env: Env, tool: string, args: unknown): Effect.Effect<Rows.Verdict> =>
  Effect.gen(function*() {
    const granted = env.granted.get(tool)
    if (granted === undefined) return refused(new GuardError.NotGranted({ tool }))
    const live = yield* liveOf(env, tool)
    if (live === undefined) return refused(new GuardError.Withdrawn({ tool, upstream: env.file.upstream.name }))
    if (GuardLock.drifted(granted.locked, definitionOf(live))) return refused(new GuardError.Drifted({ tool }))
    const checked = yield* Effect.result(granted.check(args ?? {}))
    if (Result.isFailure(checked)) return refused(checked.failure)
    const reason = granted.refuses(checked.success)
    if (reason !== undefined) return refused(new GuardError.FailedWhen({ tool, reason }))
    return { _tag: "Allow", send: send(env, live.name, checked.success) }
  })

const execute = (env: Env) =>
(
  door: Door,
  tool: string,
  args: unknown,
  caller: Identity.Principal = Identity.local
): Effect.Effect<ToolResult.ToolResult> =>
  Rows.record(env.audit, { door, tool, args, caller }, decide(env, tool, args)).pipe(
    Effect.withSpan("Guard.execute", { attributes: { door, tool } })
  )

// The upstream is the operator's own, named in the guard file: its host is reached wherever it is
// (this machine, a private network), and nothing else is, not even by a redirect.
const toolsetOptions = (file: GuardFile.GuardFile, options: Options): McpConfig.Options => ({
  ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  ...(file.upstream.type === "stdio" || !URL.canParse(file.upstream.url)
    ? {}
    : { allowedHosts: [new URL(file.upstream.url).host] })
})

/**
 * Start a guard in the current scope: read its lock, project its grants, connect its upstream (a
 * drifted tool is reported now and refused at each call), with the audit in context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Audit, Guard, GuardFile } from "effect-surface/guard"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const file = yield* GuardFile.read("guard.json")
 *   const guard = yield* Guard.make(file).pipe(Effect.provide(Audit.layer(file.audit)))
 *   return guard.tools.map((tool) => tool.name)
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const make = Effect.fn("Guard.make")(function*(file: GuardFile.GuardFile, options: Options = {}) {
  const lock = yield* GuardLock.read(file.lock)
  if (lock.upstream !== file.upstream.name) {
    return yield* new GuardError.LockMismatch({ lock: file.lock, locked: lock.upstream, upstream: file.upstream.name })
  }
  const { granted, missing } = yield* Effect.fromResult(Grants.project(file, lock))
  for (const name of missing)
    yield* Effect.logWarning(
      `"${name}" is granted but not in the lock, so it is not served: run effect-surface guard lock`
    )
  const audit = shownOnConsole(yield* Audit.AuditLog, yield* Effect.serviceOption(McpConsole.Console))
  const toolset = yield* McpToolset.make([file.upstream], toolsetOptions(file, options))
  const env: Env = { file, granted: new Map(granted.map((tool) => [tool.name, tool])), toolset, audit }
  for (const tool of granted) {
    const live = yield* liveOf(env, tool.name)
    if (live !== undefined && GuardLock.drifted(tool.locked, definitionOf(live)))
      yield* Effect.logWarning(new GuardError.Drifted({ tool: tool.name }).message)
  }
  return Guard.of({ file, tools: granted, execute: execute(env) })
})

// With an operator's console in context, each row written is also shown on its page (it holds no
// argument's value, only its keyed digest).
const shownOnConsole = (
  audit: Audit.AuditLog["Service"],
  console: Option.Option<McpConsole.Console["Service"]>
): Audit.AuditLog["Service"] =>
  Option.isNone(console) ? audit : {
    ...audit,
    write: (row) => Effect.tap(audit.write(row), () => console.value.audit({ ...row }))
  }

/**
 * The guard of a decoded guard file as a layer, its audit opened beside it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Guard, GuardFile } from "effect-surface/guard"
 * declare const file: GuardFile.GuardFile
 * const tools = Effect.map(Effect.service(Guard.Guard), (guard) => guard.tools).pipe(Effect.provide(Guard.layer(file)))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (file: GuardFile.GuardFile, options?: Options): Layer.Layer<Guard, StartError> =>
  Layer.effect(Guard, make(file, options)).pipe(Layer.provide(Audit.layer(file.audit, { key: file.auditKey })))

/**
 * The guard of the guard file at `path`, as a layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Guard } from "effect-surface/guard"
 * const answer = Effect.flatMap(Effect.service(Guard.Guard), (guard) => guard.execute("cli", "echo", { message: "hi" })).pipe(
 *   Effect.provide(Guard.layerFile("guard.json"))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerFile = (path: string, options?: Options): Layer.Layer<Guard, StartError> =>
  Layer.unwrap(Effect.map(GuardFile.read(path), (file) => layer(file, options)))

/**
 * Write the lock of a guard file: connect its upstream, read every tool it lists (name, title,
 * description, input schema, annotations, `_meta`), and write them to the file's `lock`. Fails,
 * writing nothing, when the upstream lists nothing (it could not be reached, or has no tools).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Guard, GuardFile } from "effect-surface/guard"
 * const locked = Effect.flatMap(GuardFile.read("guard.json"), (file) => Guard.lock(file)) // the Lock written
 * ```
 *
 * @since 0.1.0
 */
export const lock = Effect.fn("Guard.lock")(function*(file: GuardFile.GuardFile, options: Options = {}) {
  const listed = yield* Effect.scoped(Effect.gen(function*() {
    const toolset = yield* McpToolset.make([file.upstream], toolsetOptions(file, options))
    const tools = [...(yield* toolset.tools).values()].filter((tool) => tool.server === file.upstream.name)
    return { tools, diagnostics: yield* toolset.diagnostics }
  }))
  if (listed.tools.length === 0) {
    const why = listed.diagnostics.map((d) => d.message).join("; ")
    return yield* new GuardLock.LockError({
      path: file.lock,
      reason: `the upstream "${file.upstream.name}" listed no tools${why === "" ? "" : `: ${why}`}`
    })
  }
  // Written as drift reads it, so a lock taken now matches the upstream now.
  const written = GuardLock.of(
    file.upstream.name,
    listed.tools.map((tool) => ({ name: tool.tool, ...definitionOf(tool) }))
  )
  yield* GuardLock.write(file.lock, written)
  return written
})
