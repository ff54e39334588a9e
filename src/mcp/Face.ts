/**
 * The MCP face of a bundle, minus the protocol engine: what every session of it shares.
 *
 * A served bundle has one roster, one connection pool and one set of compiled decoders however many
 * hosts are connected; only a session's subscriptions and its protocol state are its own. This module
 * is that shared part — list, call, read and watch as Effects over the roster and the pool — so a
 * stdio session, an in-memory test session and every Streamable HTTP session run the same request
 * path, and the SDK stays in the session module alone.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Queue, Ref, Schedule, Stream } from "effect"
import type { Scope } from "effect"
import type * as Bundle from "../core/Bundle.ts"
import * as ConnectionPool from "../core/ConnectionPool.ts"
import * as Resolver from "../core/Resolver.ts"
import * as Roster from "../core/Roster.ts"
import * as ToolResult from "../core/ToolResult.ts"
import * as Client from "../surface/Client.ts"
import * as Resources from "./Resources.ts"

/**
 * How a bundle is served over MCP.
 *
 * @since 0.1.0
 */
export interface Options<E = never, R = never> {
  /** The unprefixed core surface. */
  readonly core?: Bundle.Member
  /** The siblings, keyed; each key becomes a segment of every name the sibling contributes. */
  readonly surfaces?: { readonly [sibling: string]: Bundle.Sibling }
  /** Bare-named tools at the bundle root, handed every client. */
  readonly tools?: Bundle.Bundle["tools"]
  /**
   * Dials the bundle's clients. Run again after every drop and every roster move, so it must read
   * the host's current roster rather than close over one. Yield `{ client, dispose, onClose }` when
   * the face owns a transport; `onClose` lets it drop a dead link before a request is spent on it.
   */
  readonly client: Effect.Effect<Bundle.Clients | ConnectionPool.Owned<Bundle.Clients>, E, R>
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string }
  /** A string, or an Effect read at each `initialize` (an empty answer sends no instructions). */
  readonly instructions?: string | Effect.Effect<string>
  /** How long a collection item read waits for its source. Default 5 seconds. */
  readonly itemDeadline?: Duration.Input
  /** The least time between two `resources/updated` for one URI. Default 50 milliseconds. */
  readonly coalesce?: Duration.Input
  /** How a subscription whose source is not live is retried while its subscriber waits. */
  readonly resubscribe?: Schedule.Schedule<unknown, unknown>
  /** The most retired names remembered; see `Roster`. */
  readonly tombstoneCap?: number
}

/**
 * A served bundle, shared by its sessions.
 *
 * @since 0.1.0
 */
export interface Face {
  readonly roster: Roster.Roster
  readonly serverInfo: { readonly name: string; readonly version: string; readonly title?: string }
  /**
   * The server's instructions: a fixed text (or none), or an Effect read at each `initialize` so a
   * host connecting after a roster move is told the roster it gets. Empty text sends no key.
   */
  readonly instructions:
    | { readonly _tag: "Static"; readonly text: string | undefined }
    | { readonly _tag: "Dynamic"; readonly read: Effect.Effect<string | undefined> }
  /** Replace the sibling map whole; a refused roster leaves the face exactly as it was. */
  readonly reroster: (surfaces: { readonly [sibling: string]: Bundle.Sibling }) => Effect.Effect<void, Resolver.ResolveError>
  readonly callTool: (name: string, args: unknown) => Effect.Effect<ToolResult.ToolResult, Resources.ProtocolError>
  readonly resolveUri: (uri: string) => Effect.Effect<Resources.Target, Resources.ProtocolError>
  readonly readResource: (uri: string) => Effect.Effect<Resources.Contents, Resources.ProtocolError>
  /** Run `onChange` (coalesced) at each change of `uri` until interrupted. */
  readonly watch: (uri: string, onChange: Effect.Effect<void>) => Effect.Effect<void, Resources.ProtocolError>
}

const defaultServerInfo = { name: "effect-surface", version: "0.1.0" }

/**
 * Build the shared part of an MCP face in a scope; closing the scope disposes every connection.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Client, McpFace } from "effect-surface"
 *
 * const face = McpFace.make({
 *   core: { surface: Todos, expose: { procedures: { "todo.add": true } } },
 *   client: Effect.map(todos, (impl) => ({ core: Client.erase(Client.directDispatch(impl)), clients: {} }))
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = <E, R>(options: Options<E, R>): Effect.Effect<Face, Resolver.ResolveError, Scope.Scope | Exclude<R, Scope.Scope>> =>
  Effect.gen(function*() {
    const roster = yield* Roster.make(
      {
        ...(options.core === undefined ? {} : { core: options.core }),
        ...(options.surfaces === undefined ? {} : { surfaces: options.surfaces }),
        ...(options.tools === undefined ? {} : { tools: options.tools })
      },
      options.tombstoneCap === undefined ? undefined : { cap: options.tombstoneCap }
    )
    const pool = yield* ConnectionPool.make({ dial: options.client, name: "the served surface", server: "The MCP server" })
    const itemDeadline = options.itemDeadline ?? Duration.seconds(5)
    const coalesce = options.coalesce ?? Duration.millis(50)
    const resubscribe = options.resubscribe ?? Schedule.max([Schedule.exponential("100 millis"), Schedule.recurs(6)])

    const nonEmpty = (text: string) => text === "" ? undefined : text
    const instructions: Face["instructions"] = options.instructions === undefined || typeof options.instructions === "string"
      ? { _tag: "Static", text: nonEmpty(options.instructions ?? "") }
      : { _tag: "Dynamic", read: Effect.map(options.instructions, nonEmpty) }

    const callTool = (name: string, args: unknown): Effect.Effect<ToolResult.ToolResult, Resources.ProtocolError> =>
      Effect.flatMap(roster.lookupTool(name), (found) => {
        switch (found._tag) {
          case "Unknown":
            return Effect.fail(new Resources.ProtocolError({ code: Resources.invalidParams, message: `unknown tool "${name}"`, data: { name } }))
          case "Retired":
            return Effect.succeed(ToolResult.failure(found.tombstone))
          case "Served":
            return Effect.matchEffect(found.tool.input.decode(args), {
              onFailure: (error) => Effect.succeed(ToolResult.failure(error)),
              onSuccess: (input) => invoke(found.tool, input)
            })
        }
      })

    const invoke = (tool: Bundle.Tool, input: unknown): Effect.Effect<ToolResult.ToolResult> => {
      const target = tool.target
      switch (target._tag) {
        case "Procedure": {
          const output = target.procedure.output
          return ToolResult.frame(pool.use((clients) =>
            Resources.clientOf(clients, tool.sibling).pipe(
              Effect.flatMap((client) => Client.call(client, target.ns, target.verb, input)),
              // The answer travels in its declared wire form (a Date as its ISO string, …).
              Effect.flatMap((out) => output === undefined ? Effect.succeed(out) : Resources.encodeWith(output)(out))
            )
          ))
        }
        case "SiblingTool":
          return ToolResult.frame(
            pool.use((clients) => Effect.flatMap(Resources.clientOf(clients, tool.sibling), (client) => target.tool.handler(input, client))),
            target.tool.render
          )
        case "RootTool":
          return ToolResult.frame(pool.use((clients) => target.tool.handler(input, clients)), target.tool.render)
      }
    }

    const resolveUri = (uri: string): Effect.Effect<Resources.Target, Resources.ProtocolError> =>
      Effect.flatMap(roster.lookupUri(uri), (found): Effect.Effect<Resources.Target, Resources.ProtocolError> => {
        switch (found._tag) {
          case "Resource":
            return Effect.succeed({ _tag: "Member", resource: found.resource })
          case "Item":
            return Effect.succeed({ _tag: "Item", template: found.template, id: found.id })
          case "Retired":
            return Effect.fail(new Resources.ProtocolError({ code: Resources.invalidParams, message: found.tombstone.message, data: { uri } }))
          case "Unknown":
            return Effect.fail(new Resources.ProtocolError({ code: Resources.invalidParams, message: `unknown resource ${uri}`, data: { uri } }))
        }
      })

    const linkFailure = (uri: string) => (error: { readonly message: string }) =>
      new Resources.ProtocolError({ code: Resources.internalError, message: `resource ${uri} could not be read: ${error.message}`, data: { uri } })

    const readResource = (uri: string) =>
      Effect.flatMap(resolveUri(uri), (target) =>
        pool.use((clients) => Resources.read(uri, target, clients, itemDeadline)).pipe(
          Effect.catchTags({ ConnectionLost: linkFailure(uri), DialFailed: linkFailure(uri), PoolClosed: linkFailure(uri) })
        ))

    const watch = (uri: string, onChange: Effect.Effect<void>) =>
      Effect.gen(function*() {
        const target = yield* resolveUri(uri)
        // One pending pulse at most: changes during the quiet window collapse into one trailing
        // notification, so no state goes unannounced and a busy source cannot flood the host.
        const pending = yield* Queue.sliding<void>(1)
        yield* Queue.take(pending).pipe(
          Effect.andThen(onChange),
          Effect.repeat(Schedule.spaced(coalesce)),
          Effect.forkScoped
        )
        const opened = yield* Ref.make(false)
        const follow = Effect.flatMap(Ref.getAndSet(opened, true), (reopening) =>
          pool.use((clients) =>
            Stream.runForEach(Resources.changes(target, clients, !reopening), () => Queue.offer(pending, undefined))
          ))
        yield* follow.pipe(
          Effect.retry({
            schedule: resubscribe,
            while: (e) => e._tag !== "ProtocolError"
          }),
          Effect.catch(() => Effect.void)
        )
      }).pipe(Effect.scoped)

    const reroster = (surfaces: { readonly [sibling: string]: Bundle.Sibling }) =>
      roster.reroster(surfaces).pipe(Effect.andThen(pool.retire))

    return {
      roster,
      serverInfo: options.serverInfo ?? defaultServerInfo,
      instructions,
      reroster,
      callTool,
      resolveUri,
      readResource,
      watch
    } satisfies Face
  })
