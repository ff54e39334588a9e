/**
 * The MCP face of a bundle, minus the protocol engine: what every session of it shares.
 *
 * A served bundle has one roster, one connection pool and one set of compiled decoders however many
 * hosts are connected; only a session's subscriptions, its log level and its protocol state are its
 * own. This module is that shared part — list, call, read, watch, prompts and completion as Effects
 * over the roster, the prompt and app-resource tables and the pool, each table replaceable at run
 * time — so a stdio session, an in-memory test session and every Streamable HTTP session run the
 * same request path, and the SDK stays in the session module alone.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Queue, Ref, Schedule, Stream, SubscriptionRef } from "effect"
import type { Scope } from "effect"
import type * as Bundle from "../core/Bundle.ts"
import * as ConnectionPool from "../core/ConnectionPool.ts"
import type * as Json from "../core/Json.ts"
import * as Resolver from "../core/Resolver.ts"
import * as Roster from "../core/Roster.ts"
import * as ToolResult from "../core/ToolResult.ts"
import * as Client from "../surface/Client.ts"
import * as AppResources from "./AppResources.ts"
import * as Completion from "./Completion.ts"
import type * as Logging from "./Logging.ts"
import * as Prompts from "./Prompts.ts"
import type * as Request from "./Request.ts"
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
  /** Prompts offered beside the tools; replaced at run time with `setPrompts`. */
  readonly prompts?: Prompts.Table
  /** Resources served by handler beside the `surface://` ones; replaced with `setResources`. */
  readonly resources?: AppResources.Table
  /** The level a session's handlers log to its host at until the host sends `logging/setLevel`. Default `info`. */
  readonly logLevel?: Logging.Level
}

/**
 * A `completion/complete` request: what to complete (a prompt's argument, or a resource template's
 * variable), the text typed so far, and the arguments already filled in.
 *
 * @example
 * ```ts
 * const request: McpFace.CompleteRequest = {
 *   ref: { type: "ref/resource", uri: "surface://collections/tasks/{id}" },
 *   argument: { name: "id", value: "t1" }
 * }
 * const answer = yield* face.complete(request) // { values: ["t1", "t10", ...], total, hasMore }
 * ```
 *
 * @since 0.1.0
 */
export interface CompleteRequest {
  readonly ref: { readonly type: "ref/prompt"; readonly name: string } | { readonly type: "ref/resource"; readonly uri: string }
  readonly argument: { readonly name: string; readonly value: string }
  readonly context?: { readonly arguments?: { readonly [name: string]: string } | undefined } | undefined
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
  /** Replace the root tools whole, through the same composition (a clash is refused, naming both). */
  readonly setTools: (tools: { readonly [name: string]: Bundle.BespokeTool<Bundle.Clients> }) => Effect.Effect<void, Resolver.ResolveError>
  /** Replace the prompts whole; sessions send `notifications/prompts/list_changed`. */
  readonly setPrompts: (prompts: Prompts.Table) => Effect.Effect<void>
  /** Replace the app's resources whole; refused when one claims `surface:`. */
  readonly setResources: (resources: AppResources.Table) => Effect.Effect<void, Resolver.ResolveError>
  /** The prompts now served, and each later table (the first frame is the current one). */
  readonly prompts: { readonly current: Effect.Effect<Prompts.Table>; readonly changes: Stream.Stream<Prompts.Table> }
  /** The app's resources now served, and each later table. */
  readonly appResources: { readonly current: Effect.Effect<AppResources.Compiled>; readonly changes: Stream.Stream<AppResources.Compiled> }
  /** The level a session logs at until its host sets one. */
  readonly logLevel: Logging.Level
  readonly callTool: (name: string, args: unknown) => Effect.Effect<ToolResult.ToolResult, Resources.ProtocolError, Request.Services>
  readonly listResources: Effect.Effect<ReadonlyArray<Json.JsonObject>>
  readonly listResourceTemplates: Effect.Effect<ReadonlyArray<Json.JsonObject>>
  readonly listPrompts: Effect.Effect<ReadonlyArray<Json.JsonObject>>
  readonly getPrompt: (
    name: string,
    args: unknown
  ) => Effect.Effect<{ readonly description: string; readonly messages: Array<Prompts.Message> }, Resources.ProtocolError, Request.Services>
  readonly complete: (request: CompleteRequest) => Effect.Effect<Completion.Completion, Resources.ProtocolError>
  /** A `surface://` URI's target; any other URI is refused (see `checkUri`). */
  readonly resolveUri: (uri: string) => Effect.Effect<Resources.Target, Resources.ProtocolError>
  /** Whether anything serves `uri`, of either kind: -32602 naming it when nothing does. */
  readonly checkUri: (uri: string) => Effect.Effect<void, Resources.ProtocolError>
  readonly readResource: (uri: string) => Effect.Effect<ReadonlyArray<ToolResult.ResourceContents>, Resources.ProtocolError>
  /** Run `onChange` (coalesced) at each change of `uri` until interrupted. */
  readonly watch: (uri: string, onChange: Effect.Effect<void>) => Effect.Effect<void, Resources.ProtocolError>
}

const defaultServerInfo = { name: "effect-surface", version: "0.1.0" }

const unknownUri = (uri: string) =>
  new Resources.ProtocolError({ code: Resources.invalidParams, message: `unknown resource ${uri}`, data: { uri } })

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
    const prompts = yield* SubscriptionRef.make<Prompts.Table>(options.prompts ?? {})
    const apps = yield* SubscriptionRef.make(yield* AppResources.compile(options.resources ?? {}))
    const pool = yield* ConnectionPool.make({ dial: options.client, name: "the served surface", server: "The MCP server" })
    const itemDeadline = options.itemDeadline ?? Duration.seconds(5)
    const coalesce = options.coalesce ?? Duration.millis(50)
    const resubscribe = options.resubscribe ?? Schedule.max([Schedule.exponential("100 millis"), Schedule.recurs(6)])

    const nonEmpty = (text: string) => text === "" ? undefined : text
    const instructions: Face["instructions"] = options.instructions === undefined || typeof options.instructions === "string"
      ? { _tag: "Static", text: nonEmpty(options.instructions ?? "") }
      : { _tag: "Dynamic", read: Effect.map(options.instructions, nonEmpty) }

    const callTool = (name: string, args: unknown): Effect.Effect<ToolResult.ToolResult, Resources.ProtocolError, Request.Services> =>
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

    const invoke = (tool: Bundle.Tool, input: unknown): Effect.Effect<ToolResult.ToolResult, never, Request.Services> => {
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
            return Effect.fail(unknownUri(uri))
        }
      })

    // Every URI outside `surface:` belongs to the app's handlers; nothing there is unknown-but-retired.
    const findApp = (uri: string): Effect.Effect<AppResources.Found, Resources.ProtocolError> =>
      Effect.flatMap(SubscriptionRef.get(apps), (compiled) => {
        const found = AppResources.find(compiled, uri)
        return found === undefined ? Effect.fail(unknownUri(uri)) : Effect.succeed(found)
      })

    const checkUri = (uri: string): Effect.Effect<void, Resources.ProtocolError> =>
      AppResources.isSurfaceUri(uri) ? Effect.asVoid(resolveUri(uri)) : Effect.asVoid(findApp(uri))

    const linkFailure = (uri: string) => (error: { readonly message: string }) =>
      new Resources.ProtocolError({ code: Resources.internalError, message: `resource ${uri} could not be read: ${error.message}`, data: { uri } })

    const readResource = (uri: string): Effect.Effect<ReadonlyArray<ToolResult.ResourceContents>, Resources.ProtocolError> =>
      AppResources.isSurfaceUri(uri)
        ? Effect.flatMap(resolveUri(uri), (target) =>
          pool.use((clients) => Resources.read(uri, target, clients, itemDeadline)).pipe(
            Effect.map((contents) => [contents]),
            Effect.catchTags({ ConnectionLost: linkFailure(uri), DialFailed: linkFailure(uri), PoolClosed: linkFailure(uri) })
          ))
        : Effect.flatMap(findApp(uri), AppResources.read)

    // Changes of a `surface://` target, re-opened over the pool while the subscriber waits.
    const followSurface = (uri: string, pending: Queue.Queue<void>) =>
      Effect.gen(function*() {
        const target = yield* resolveUri(uri)
        const opened = yield* Ref.make(false)
        const follow = Effect.flatMap(Ref.getAndSet(opened, true), (reopening) =>
          pool.use((clients) =>
            Stream.runForEach(Resources.changes(target, clients, !reopening), () => Queue.offer(pending, undefined))
          ))
        yield* follow.pipe(
          Effect.retry({ schedule: resubscribe, while: (e) => e._tag !== "ProtocolError" }),
          Effect.catch(() => Effect.void)
        )
      })

    // An app resource without `changes` never changes: the subscription stands, silent.
    const followApp = (uri: string, pending: Queue.Queue<void>) =>
      Effect.flatMap(findApp(uri), (found) => {
        const changes = AppResources.changes(found)
        return changes === undefined
          ? Effect.never
          : Stream.runForEach(changes, () => Queue.offer(pending, undefined)).pipe(Effect.catch(() => Effect.void))
      })

    const watch = (uri: string, onChange: Effect.Effect<void>) =>
      Effect.gen(function*() {
        yield* checkUri(uri)
        // One pending pulse at most: changes during the quiet window collapse into one trailing
        // notification, so no state goes unannounced and a busy source cannot flood the host.
        const pending = yield* Queue.sliding<void>(1)
        yield* Queue.take(pending).pipe(
          Effect.andThen(onChange),
          Effect.repeat(Schedule.spaced(coalesce)),
          Effect.forkScoped
        )
        yield* AppResources.isSurfaceUri(uri) ? followSurface(uri, pending) : followApp(uri, pending)
      }).pipe(Effect.scoped)

    const withClients = <A, E2, R2>(f: (clients: Bundle.Clients) => Effect.Effect<A, E2, R2>) => pool.use(f)

    const getPrompt = (name: string, args: unknown) =>
      Effect.flatMap(SubscriptionRef.get(prompts), (table) => {
        const prompt = Object.hasOwn(table, name) ? table[name] : undefined
        return prompt === undefined
          ? Effect.fail(new Resources.ProtocolError({ code: Resources.invalidParams, message: `unknown prompt "${name}"`, data: { name } }))
          : Prompts.get(name, prompt, args, withClients)
      })

    const complete = (request: CompleteRequest): Effect.Effect<Completion.Completion, Resources.ProtocolError> =>
      Effect.gen(function*() {
        const { argument, ref } = request
        const context = { arguments: request.context?.arguments ?? {} }
        if (ref.type === "ref/prompt") {
          const table = yield* SubscriptionRef.get(prompts)
          const prompt = Object.hasOwn(table, ref.name) ? table[ref.name] : undefined
          if (prompt === undefined) {
            return yield* new Resources.ProtocolError({ code: Resources.invalidParams, message: `unknown prompt "${ref.name}"`, data: { name: ref.name } })
          }
          return yield* Completion.run(argument.name, Prompts.completerOf(prompt, argument.name), argument.value, context)
        }
        const collection = (yield* roster.current).templates.find((t) => t.uriTemplate === ref.uri)
        if (collection !== undefined) {
          // A collection's item template has one variable, the item's id, completed from live keys.
          if (argument.name !== "id") return Completion.empty
          const keys = yield* pool.use((clients) => Completion.collectionKeys(collection, clients, argument.value, itemDeadline)).pipe(
            Effect.catchTags({ ConnectionLost: linkFailure(ref.uri), DialFailed: linkFailure(ref.uri), PoolClosed: linkFailure(ref.uri) })
          )
          return Completion.bound(keys)
        }
        const compiled = yield* SubscriptionRef.get(apps)
        if (!AppResources.hasTemplate(compiled, ref.uri)) {
          return yield* new Resources.ProtocolError({
            code: Resources.invalidParams,
            message: `unknown resource template ${ref.uri}`,
            data: { uri: ref.uri }
          })
        }
        return yield* Completion.run(argument.name, AppResources.completerOf(compiled, ref.uri, argument.name), argument.value, context)
      })

    const reroster = (surfaces: { readonly [sibling: string]: Bundle.Sibling }) =>
      roster.reroster(surfaces).pipe(Effect.andThen(pool.retire))

    return {
      roster,
      serverInfo: options.serverInfo ?? defaultServerInfo,
      instructions,
      reroster,
      // The clients a root tool receives do not depend on the root tools, so no re-dial.
      setTools: (tools) => Effect.asVoid(roster.retool(tools)),
      setPrompts: (table) => SubscriptionRef.set(prompts, table),
      setResources: (table) => Effect.flatMap(AppResources.compile(table), (compiled) => SubscriptionRef.set(apps, compiled)),
      prompts: { current: SubscriptionRef.get(prompts), changes: SubscriptionRef.changes(prompts) },
      appResources: { current: SubscriptionRef.get(apps), changes: SubscriptionRef.changes(apps) },
      logLevel: options.logLevel ?? "info",
      callTool,
      listResources: Effect.zipWith(roster.current, SubscriptionRef.get(apps), (resolved, compiled) => [
        ...resolved.advertisedResources,
        ...compiled.advertisedResources
      ]),
      listResourceTemplates: Effect.zipWith(roster.current, SubscriptionRef.get(apps), (resolved, compiled) => [
        ...resolved.advertisedResourceTemplates,
        ...compiled.advertisedTemplates
      ]),
      listPrompts: Effect.map(SubscriptionRef.get(prompts), (table) => Object.entries(table).map(([name, prompt]) => Prompts.advertise(name, prompt))),
      getPrompt,
      complete,
      resolveUri,
      checkUri,
      readResource,
      watch
    } satisfies Face
  })
