/**
 * A local bundle as one of the toolset's servers: an agent's own capabilities in the same map as
 * the remote ones, under the same policy, filter, names and deadlines.
 *
 * Nothing here speaks MCP or re-implements the core: the listing is the roster's `advertisedTools`
 * (the very answer an MCP face gives `tools/list`), run through the same catalogue steps as a remote
 * listing, and a call is the core engine's `call`, whose answer is a tool result like a remote one,
 * so the toolset's one result adapter reads it. The roster's `changes` play the part of
 * `tools/list_changed`: a reroster refreshes the map in place.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import type * as Bundle from "../../core/Bundle.ts"
import * as Caller from "../../core/Caller.ts"
import * as Engine from "../../core/Engine.ts"
import * as Roster from "../../core/Roster.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import * as Catalog from "../Catalog.ts"
import type * as Config from "../Config.ts"
import * as Diagnostic from "../Diagnostic.ts"
import { McpProtocolError, ToolTimeout, UnknownTool } from "../Errors.ts"
import type * as Link from "./link.ts"
import * as Listing from "./listing.ts"

// The bundle's core as given, or built in the toolset's scope (released when it closes).
const coreOf = (
  wired: Config.Wired<Config.Local>
): Effect.Effect<Context.Context<Config.LocalCore>, string, Scope.Scope> => {
  const core = wired.config.core
  if (Context.isContext(core)) return Effect.succeed(core)
  return Layer.build(core).pipe(
    Effect.mapError((error) => `its core could not be built: ${messageOf(error)}`),
    Effect.timeoutOrElse({
      duration: Duration.millis(wired.connectTimeoutMs),
      orElse: () => Effect.fail(`its core was not built within ${wired.connectTimeoutMs} ms`)
    })
  )
}

// One call through the engine, with the request's deadline; a name the roster no longer serves
// (retired between the map's refresh and the call) is as unknown to the toolset as any other.
const caller =
  (engine: Engine.Engine["Service"], server: string, context: Context.Context<Caller.Services>): Link.Link["call"] =>
  (name, tool, args, timeoutMs) =>
    engine.call(tool, args).pipe(
      Effect.provideContext(context),
      Effect.catchTags({
        UnknownTool: () => Effect.fail(new UnknownTool({ name })),
        Retired: () => Effect.fail(new UnknownTool({ name }))
      }),
      Effect.timeoutOrElse({
        duration: Duration.millis(timeoutMs),
        orElse: () => Effect.fail(new ToolTimeout({ name, server, timeoutMs }))
      })
    )

/**
 * List a local entry's tools off its roster and follow its moves. Answers `undefined` for an entry
 * whose core could not be built (with its diagnostic emitted), so the other servers load.
 */
export const make = (
  wired: Config.Wired<Config.Local>,
  env: Link.Env
): Effect.Effect<Link.Link | undefined, never, Scope.Scope> =>
  Effect.gen(function*() {
    const server = wired.config.name
    const built = yield* Effect.result(coreOf(wired))
    if (built._tag === "Failure")
      return yield* Effect.as(env.emit(Diagnostic.serverUnavailable(server, built.failure)), undefined)
    const engine = Context.get(built.success, Engine.Engine)
    const roster = Context.get(built.success, Roster.Roster)
    const list = (resolved: Bundle.Resolved) => {
      const projected = Catalog.fromListing({ name: server, key: wired.key }, resolved.advertisedTools)
      return Effect.as(Effect.forEach(projected.diagnostics, env.emit, { discard: true }), projected.entries)
    }
    let listed = yield* roster.current
    const entries = yield* Ref.make(yield* list(listed))
    // `changes` starts with the roster of the moment: the one just listed, unless a move came between.
    yield* Stream.runForEach(roster.changes, (resolved) =>
      resolved === listed ? Effect.void : Effect.gen(function*() {
        listed = resolved
        const before = yield* Ref.getAndSet(entries, yield* list(resolved))
        yield* Listing.announce(server, before, yield* Ref.get(entries), env)
      })).pipe(Effect.forkScoped)
    return {
      wired,
      entries: Ref.get(entries),
      dials: Effect.succeed(0),
      reconciled: Effect.void,
      call: caller(engine, server, env.options.caller ?? Caller.none),
      // A bundle's resources and prompts are its faces' to serve; here it offers tools alone.
      request: (name, method) =>
        Effect.fail(
          new McpProtocolError({ name, server, code: -32601, reason: `a local bundle does not answer ${method} here` })
        )
    } satisfies Link.Link
  })
