/**
 * Many MCP servers as one tool map an agent can hand to a model without handing over the keys.
 *
 * An agent connects servers it did not write: their names collide, their URLs come from files,
 * their binaries come from plugins, their tools can be destructive whatever their annotations say,
 * and they hang, die and change their lists. A toolset is the one place all of that is decided: it
 * wires every server through the same checks, names every tool legally and stably, and runs every
 * call down one path — look the name up, check the arguments against the server's schema, ask the
 * policy, resolve the credential, send with a deadline over the server's connection pool, read the
 * answer through the one result adapter. The Promise API and the `effect/ai` Toolkit are built on
 * this same path, never beside it. Closing the scope closes every connection. A local bundle
 * (`type: "local"`) sits in the same map, its calls dispatched through the core's engine.
 *
 * @since 0.1.0
 */
import { Context, Deferred, Effect, Layer, Ref, Semaphore, Stream, SubscriptionRef } from "effect"
import type { Scope } from "effect"
import * as Approval from "../core/Approval.ts"
import * as AiToolkit from "./AiToolkit.ts"
import * as CallResult from "./CallResult.ts"
import * as Catalog from "./Catalog.ts"
import * as Config from "./Config.ts"
import * as Diagnostic from "./Diagnostic.ts"
import { type CallError, InvalidArguments, UnknownTool, type WiringError } from "./Errors.ts"
import * as Link from "./internal/link.ts"
import * as Local from "./internal/local.ts"
import * as Policy from "./Policy.ts"

/**
 * How one call may differ from the toolset's defaults.
 *
 * @example
 * ```ts
 * import type { McpToolset } from "effect-surface/client"
 * const options: McpToolset.CallOptions = { timeoutMs: 5_000 }
 * ```
 *
 * @since 0.1.0
 */
export interface CallOptions {
  /** This call's deadline, over the server's and the toolset's. */
  readonly timeoutMs?: number | undefined
}

/**
 * A running toolset. `tools` and `changes` give the projected map (`changes` starts with the
 * current one and follows every `tools/list_changed`); `call` runs a tool by its projected name;
 * `toolkit` builds an `effect/ai` Toolkit over the tools held now; `reconciled` completes once the
 * map has been checked against the servers (at once for a toolset made by connecting).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpToolset } from "effect-surface/client"
 * declare const toolset: McpToolset.Toolset
 * const program = Effect.gen(function*() {
 *   const tools = yield* toolset.tools
 *   return yield* toolset.call("memory__read_graph", {})
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Toolset {
  readonly tools: Effect.Effect<ReadonlyMap<string, Catalog.Tool>>
  readonly changes: Stream.Stream<ReadonlyMap<string, Catalog.Tool>>
  readonly call: (name: string, args: unknown, options?: CallOptions) => Effect.Effect<CallResult.Result, CallError>
  readonly diagnostics: Effect.Effect<ReadonlyArray<Diagnostic.Diagnostic>>
  readonly toolkit: Effect.Effect<AiToolkit.Kit>
  readonly reconciled: Effect.Effect<void>
}

/**
 * The toolset as a service, for a program that is handed one (`layer`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolset } from "effect-surface/client"
 * const program = Effect.gen(function*() {
 *   const toolset = yield* McpToolset.McpToolset
 *   return yield* toolset.tools
 * })
 * ```
 *
 * @since 0.1.0
 */
export class McpToolset extends Context.Service<McpToolset, Toolset>()("effect-surface/McpToolset") {}

interface Located {
  readonly tool: Catalog.Tool
  readonly check: Catalog.Entry["check"]
  readonly link: Link.Link
}

interface State {
  readonly tools: ReadonlyMap<string, Catalog.Tool>
  readonly located: ReadonlyMap<string, Located>
}

const diagnosticsOf = <S>(options: Config.Options<S>) =>
  Effect.gen(function*() {
    const all = yield* Ref.make<ReadonlyArray<Diagnostic.Diagnostic>>([])
    const seen = new Set<string>()
    const emit = (diagnostic: Diagnostic.Diagnostic): Effect.Effect<void> =>
      Effect.suspend(() => {
        // A listing re-read reports the same things again; each is said once. A change is news each time.
        if (diagnostic.kind !== "tools-changed") {
          if (seen.has(diagnostic.message)) return Effect.void
          seen.add(diagnostic.message)
        }
        const handler = options.onDiagnostic
        const told = handler === undefined ? Effect.void : Effect.suspend(() => {
          const answer = handler(diagnostic)
          return Effect.isEffect(answer) ? answer : Effect.void
        })
        const log = diagnostic.level === "warning" ? Effect.logWarning(diagnostic.message) : Effect.logInfo(diagnostic.message)
        return Effect.andThen(Ref.update(all, (ds) => [...ds, diagnostic]), Effect.andThen(Effect.ignoreCause(told), log))
      }).pipe(Effect.annotateLogs({ "mcp.diagnostic": diagnostic.kind }))
    return { all: Ref.get(all), emit }
  })

// A remote server gets a link over MCP; a local bundle, one over the core's engine.
const connect = (server: Config.Wired, env: Link.Env) =>
  server.config.type === "local" ? Local.make({ ...server, config: server.config }, env) : Link.make({ ...server, config: server.config }, env)

/**
 * Connect the servers and project their tools, in the current scope. Refuses the configuration
 * (`WiringError`) before anything starts; past that it does not fail: a server that is refused or
 * cannot be reached is a diagnostic, and the others load. Closing the scope closes every
 * connection (children killed, HTTP sessions deleted, SSE streams ended). The `Approval` in context
 * here answers the policy's asks.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolset } from "effect-surface/client"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const toolset = yield* McpToolset.make([
 *     { name: "memory", type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }
 *   ], { timeoutMs: 30_000 })
 *   return yield* toolset.call("memory__read_graph", {})
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const make: <S = unknown>(
  servers: ReadonlyArray<Config.Server>,
  options?: Config.Options<S>
) => Effect.Effect<Toolset, WiringError, Scope.Scope> = Effect.fn("McpToolset.make")(function*<S>(
  servers: ReadonlyArray<Config.Server>,
  options: Config.Options<S> = {}
) {
  const wired = yield* Config.wire(servers, options)
  const approval = yield* Effect.serviceOption(Approval.Approval)
  const diagnostics = yield* diagnosticsOf(options)
  for (const collision of wired.collisions) yield* diagnostics.emit(Diagnostic.serverNameCollision(collision.name, collision.keys))

  const state = yield* SubscriptionRef.make<State>({ tools: new Map(), located: new Map() })
  const links = yield* Ref.make<ReadonlyArray<Link.Link>>([])
  const publishing = yield* Semaphore.make(1)
  const project = Effect.gen(function*() {
    const perServer = yield* Effect.forEach(yield* Ref.get(links), (link) =>
      Effect.map(link.entries, (entries) => ({
        key: link.wired.key,
        entries: entries.map((entry): Located => ({ ...entry, link }))
      })))
    const merged = Catalog.merge(perServer)
    const { kept, unmatched } = Catalog.filter(merged.map, options.tools)
    yield* Effect.forEach(merged.diagnostics, diagnostics.emit, { discard: true })
    yield* SubscriptionRef.set(state, { located: kept, tools: new Map([...kept].map(([name, found]) => [name, found.tool])) })
    return unmatched
  })
  const publish = publishing.withPermits(1)(Effect.asVoid(project))

  const env: Link.Env = { options, emit: diagnostics.emit, publish }
  const made = yield* Effect.forEach(wired.servers, (server) => connect(server, env), { concurrency: "unbounded" })
  yield* Ref.set(links, made.filter((link) => link !== undefined))
  const unmatched = yield* publishing.withPermits(1)(project)
  yield* Effect.forEach(unmatched, (entry) => diagnostics.emit(Diagnostic.filterUnmatched(entry)), { discard: true })
  const reconciled = yield* Deferred.make<void>()
  yield* Deferred.succeed(reconciled, undefined)

  // The hot path, built from plain steps rather than a generator: it runs once per tool call.
  const invoke = (name: string, found: Located, args: unknown, timeoutMs: number | undefined) => {
    const { link, tool } = found
    const send = (checked: unknown) =>
      Effect.flatMap(
        link.call(name, tool.tool, checked, timeoutMs ?? link.wired.timeoutMs),
        (raw) => CallResult.adapt(raw, { name, server: tool.server, tool: tool.tool })
      )
    const gated = options.policy === undefined ? send : (checked: unknown) =>
      Effect.andThen(
        Policy.gate(options.policy, { toolName: name, server: tool.server, tool: tool.tool, args: checked }, { approval, description: tool.description }),
        send(checked)
      )
    const given = args === undefined || args === null ? {} : args
    return found.check === undefined
      ? gated(given)
      : Effect.flatMap(Effect.mapError(found.check(given), (error) => new InvalidArguments({ name, reason: error.message })), gated)
  }
  const call = (name: string, args: unknown, callOptions?: CallOptions): Effect.Effect<CallResult.Result, CallError> =>
    Effect.withSpan(
      Effect.suspend((): Effect.Effect<CallResult.Result, CallError> => {
        const found = SubscriptionRef.getUnsafe(state).located.get(name)
        return found === undefined ? Effect.fail(new UnknownTool({ name })) : invoke(name, found, args, callOptions?.timeoutMs)
      }),
      "McpToolset.call",
      { attributes: { "mcp.tool": name }, captureStackTrace: false }
    )

  const toolset: Toolset = {
    tools: Effect.map(SubscriptionRef.get(state), (s) => s.tools),
    changes: Stream.map(SubscriptionRef.changes(state), (s) => s.tools),
    call,
    diagnostics: diagnostics.all,
    toolkit: Effect.flatMap(SubscriptionRef.get(state), (s) => AiToolkit.make(s.tools, (name, args) => call(name, args))),
    reconciled: Deferred.await(reconciled)
  }
  return toolset
})

/**
 * The toolset as a layer: connected when the layer is built, closed when it is released.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpToolset } from "effect-surface/client"
 *
 * const Tools = McpToolset.layer([{ name: "memory", type: "stdio", command: "mcp-server-memory" }])
 * const program = Effect.gen(function*() {
 *   const toolset = yield* McpToolset.McpToolset
 *   return [...(yield* toolset.tools).keys()]
 * }).pipe(Effect.provide(Tools))
 * ```
 *
 * @since 0.1.0
 */
export const layer = <S = unknown>(servers: ReadonlyArray<Config.Server>, options?: Config.Options<S>): Layer.Layer<McpToolset, WiringError> =>
  Layer.effect(McpToolset, make(servers, options))
