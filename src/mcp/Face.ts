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
import { Cause, Deferred, Duration, Effect, Exit, Latch, Option, Pull, Ref, Schedule, Stream, SubscriptionRef } from "effect"
import type { Scope } from "effect"
import type * as Bundle from "../core/Bundle.ts"
import * as ConnectionPool from "../core/ConnectionPool.ts"
import type * as Json from "../core/Json.ts"
import * as Resolver from "../core/Resolver.ts"
import * as Roster from "../core/Roster.ts"
import { messageOf } from "../core/ToolFailure.ts"
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
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Expose, Implementation, Surface } from "effect-surface"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * const Notes = Surface.make({ cells: { latest: Surface.cell(Schema.String, "") } })
 * const options = Effect.map(Implementation.cells(Notes), (cells): McpFace.Options => ({
 *   core: { surface: Notes, expose: Expose.make(Notes, { cells: { latest: true } }) },
 *   client: Effect.succeed({ core: Client.erase(Client.directDispatch(Implementation.make(Notes, { cells, procedures: {} }))), clients: {} }),
 *   readDeadline: "5 seconds"
 * }))
 * ```
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
  /**
   * How long any `resources/read` waits for its answer (a cell, collection, stream or item of the
   * bundle, or an app resource): past it the read fails, naming the URI. Default 10 seconds.
   */
  readonly readDeadline?: Duration.Input
  /** The least time between two `resources/updated` for one URI. Default 50 milliseconds. */
  readonly coalesce?: Duration.Input
  /**
   * How a subscription whose source drops (or is not live yet) is re-opened while its subscriber
   * waits. The budget starts again each time an open delivers its first frame, so a link that drops
   * now and then is followed for as long as the subscriber stays; a subscription whose budget runs
   * out ends, with a last `resources/updated` (so the host re-reads and sees the failure) and a
   * warning in the server's log. Default: exponential from 100 milliseconds, 6 retries.
   */
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
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Face
 * const request: McpFace.CompleteRequest = {
 *   ref: { type: "ref/resource", uri: "surface://collections/tasks/{id}" },
 *   argument: { name: "id", value: "t1" }
 * }
 * const answer = face.complete(request) // { values: ["t1", "t10", ...], total, hasMore }
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
 * A served bundle, shared by its sessions: every request a session answers is one of these
 * Effects, so a session module only translates the protocol.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const face: McpFace.Face = yield* McpFace.make(options)
 *   const tools = (yield* face.roster.current).advertisedTools
 *   const contents = yield* face.readResource("surface://cells/focus")
 *   return { tools, contents }
 * }).pipe(Effect.scoped)
 * ```
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
  /**
   * Follow `uri` for one subscriber: run `onChange` (coalesced) at each change until interrupted.
   * `onOpen` runs once, when the subscription is live (its first frame arrived, or its source was
   * subscribed, for a member with no snapshot) or has ended before it could be. The subscription
   * follows roster and app-resource moves and dropped links on its own, re-opening on what serves
   * the URI now; a change made while it re-opened is announced. It ends — with a last `onChange`, so
   * the host re-reads and learns why, and a line in the server's log — when the URI is no longer
   * served, its source completes or fails for good, or its retry budget runs out. Fails only when
   * nothing serves `uri` to begin with.
   */
  readonly watch: (uri: string, onChange: Effect.Effect<void>, onOpen?: Effect.Effect<void>) => Effect.Effect<void, Resources.ProtocolError>
  /** How many subscriptions, across every session, are being followed now. */
  readonly watching: Effect.Effect<number>
}

const defaultServerInfo = { name: "effect-surface", version: "0.1.0" }

const refusedInput = (error: unknown): Effect.Effect<ToolResult.ToolResult> => Effect.succeed(ToolResult.failure(error))

const unknownUri = (uri: string) =>
  new Resources.ProtocolError({ code: Resources.invalidParams, message: `unknown resource ${uri}`, data: { uri } })

/**
 * Build the shared part of an MCP face in a scope; closing the scope disposes every connection.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Implementation, Surface } from "effect-surface"
 * import { McpFace } from "effect-surface/mcp"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: { input: Schema.String, output: Schema.String, mutates: true } } } })
 * const todos = Implementation.make(Todos, { procedures: { todo: { add: (title) => Effect.succeed(`added ${title}`) } } })
 *
 * const face = McpFace.make({
 *   core: { surface: Todos, expose: { procedures: { "todo.add": true } } },
 *   client: Effect.succeed({ core: Client.erase(Client.directDispatch(todos)), clients: {} })
 * }) // Effect<McpFace.Face, ResolveError, Scope>
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
    const readDeadline = Duration.fromInputUnsafe(options.readDeadline ?? Duration.seconds(10))
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
          case "Served": {
            const tool = found.tool
            return Effect.matchEffect(tool.input.decode(args), { onFailure: refusedInput, onSuccess: (input) => invoke(tool, input) })
          }
        }
      })

    const invoke = (tool: Bundle.Tool, input: unknown): Effect.Effect<ToolResult.ToolResult, never, Request.Services> => {
      const target = tool.target
      switch (target._tag) {
        case "Procedure": {
          return ToolResult.frame(pool.use((clients) => {
            // The client in hand when the factory gave one (the usual case), else its refusal.
            const client = tool.sibling === undefined ? clients.core : Object.hasOwn(clients.clients, tool.sibling) ? clients.clients[tool.sibling] : undefined
            const call = (found: Client.AnyClient) =>
              // The answer travels in its declared wire form (a Date as its ISO string, …).
              Effect.flatMap(Client.call(found, target.ns, target.verb, input), target.encode)
            return client === undefined ? Effect.flatMap(Resources.clientOf(clients, tool.sibling), call) : call(client)
          }))
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

    const readResource = (uri: string): Effect.Effect<ReadonlyArray<ToolResult.ResourceContents>, Resources.ProtocolError> => {
      const reading = AppResources.isSurfaceUri(uri)
        ? Effect.flatMap(resolveUri(uri), (target) =>
          pool.use((clients) => Resources.read(uri, target, clients, itemDeadline)).pipe(
            Effect.map((contents): ReadonlyArray<ToolResult.ResourceContents> => [contents]),
            Effect.catchTags({ ConnectionLost: linkFailure(uri), DialFailed: linkFailure(uri), PoolClosed: linkFailure(uri) })
          ))
        : Effect.flatMap(findApp(uri), AppResources.read)
      return Effect.timeoutOrElse(reading, {
        duration: readDeadline,
        orElse: () => Effect.fail(linkFailure(uri)({ message: `no answer within ${Duration.format(readDeadline)}` }))
      })
    }

    // How one subscription ended, told to the server's log (the host is told by a last update): a
    // URI no longer served is the roster's doing, anything else a failure worth a warning.
    const logEnd = (uri: string, exit: Exit.Exit<void, unknown>): Effect.Effect<void> => {
      if (Exit.isSuccess(exit)) return Effect.logInfo(`subscription to ${uri} ended: its source completed`)
      const failure = Cause.findErrorOption(exit.cause)
      if (Option.isNone(failure)) return Effect.logError(`subscription to ${uri} ended: ${messageOf(exit.cause)}`, exit.cause)
      const error = failure.value
      return error instanceof Resources.ProtocolError && error.code === Resources.invalidParams
        ? Effect.logInfo(`subscription to ${uri} ended: ${error.message}`)
        : Effect.logWarning(`subscription to ${uri} ended: ${messageOf(error)}`)
    }

    // Follow one generation of what serves a URI (a roster, an app-resource table) until `follow`
    // ends; a new generation interrupts it and follows again. Answers how the last one ended.
    const acrossGenerations = <G, E>(
      generations: Stream.Stream<G>,
      follow: (generation: G) => Effect.Effect<void, E>
    ): Effect.Effect<void, E> =>
      generations.pipe(
        Stream.switchMap((generation) => Stream.fromEffect(Effect.exit(follow(generation)))),
        Stream.runHead,
        // The generations never end, so the head is the first follow that ended.
        Effect.flatMap(Option.match({ onNone: () => Effect.never, onSome: (exit) => exit }))
      )

    // One open of a `surface://` target, re-opened over the pool while the subscriber waits: each
    // open that delivers its first frame starts the retry budget again; a refusal, a completed
    // source or a spent budget ends the follow.
    const followTarget = (uri: string, seen: Resources.Seen, pulse: Effect.Effect<void>, opened: Effect.Effect<void>) =>
      Effect.gen(function*() {
        const target = yield* resolveUri(uri)
        // A member with no snapshot is live as soon as its source is subscribed.
        const live = target._tag === "Member" && target.resource.kind === "event" ? opened : Effect.void
        let step = yield* Schedule.toStepWithSleep(resubscribe)
        while (true) {
          const delivered = yield* Ref.make(false)
          const exit = yield* Effect.exit(pool.use((clients) =>
            Effect.andThen(
              live,
              Stream.runForEach(Resources.changes(target, clients, seen), (frame) =>
                frame.first
                  ? Effect.andThen(Ref.set(delivered, true), frame.changed ? Effect.andThen(opened, pulse) : opened)
                  : frame.changed ? pulse : Effect.void)
            )
          ))
          if (Exit.isSuccess(exit)) return
          const failure = Cause.findErrorOption(exit.cause)
          if (Option.isNone(failure)) return yield* Effect.failCause(exit.cause)
          const error = failure.value
          if (error._tag === "ProtocolError") return yield* Effect.fail(error)
          if (yield* Ref.get(delivered)) step = yield* Schedule.toStepWithSleep(resubscribe)
          const again = yield* step(error).pipe(Effect.as(true), Pull.catchDone(() => Effect.succeed(false)))
          if (!again) return yield* Effect.fail(error)
        }
      })

    // A roster move that leaves the core and the siblings as they were (the root tools moved) leaves
    // every resource where it was; any other re-opens, on the connection the move re-dialled.
    const sameMembers = (a: Bundle.Resolved, b: Bundle.Resolved) => a.bundle.surfaces === b.bundle.surfaces && a.bundle.core === b.bundle.core

    const followSurface = (uri: string, pulse: Effect.Effect<void>, opened: Effect.Effect<void>) =>
      Effect.flatMap(
        Ref.make<Option.Option<Effect.Effect<string>>>(Option.none()),
        (seen) => acrossGenerations(Stream.changesWith(roster.changes, sameMembers), () => followTarget(uri, seen, pulse, opened))
      )

    // An app resource is followed under each table in turn; one without `changes` never changes, so
    // its subscription stands, silent, until the table moves.
    const followApp = (uri: string, pulse: Effect.Effect<void>, opened: Effect.Effect<void>) =>
      acrossGenerations(SubscriptionRef.changes(apps), (compiled) => {
        const found = AppResources.find(compiled, uri)
        if (found === undefined) return Effect.fail(unknownUri(uri))
        const changes = AppResources.changes(found)
        return Effect.andThen(
          opened,
          changes === undefined ? Effect.never : Stream.runForEach(changes, () => pulse).pipe(
            Effect.mapError((error) =>
              new Resources.ProtocolError({ code: Resources.internalError, message: `the changes of resource ${uri} failed: ${messageOf(error)}`, data: { uri } })
            )
          )
        )
      })

    const watchers = yield* Ref.make(0)

    const watch = (uri: string, onChange: Effect.Effect<void>, onOpen: Effect.Effect<void> = Effect.void) =>
      Effect.gen(function*() {
        yield* checkUri(uri)
        yield* Effect.acquireRelease(Ref.update(watchers, (n) => n + 1), () => Ref.update(watchers, (n) => n - 1))
        const once = yield* Deferred.make<void>()
        const opened = Effect.flatMap(Deferred.succeed(once, undefined), (first) => first ? onOpen : Effect.void)
        // One pending pulse at most: changes during the quiet window collapse into one trailing
        // notification, so no state goes unannounced and a busy source cannot flood the host. A
        // pulse opens the latch in place, so a notifier waiting on it sends in the same turn as
        // the change rather than a scheduler turn later.
        const pending = yield* Latch.make(false)
        yield* pending.await.pipe(
          Effect.andThen(pending.close),
          Effect.andThen(onChange),
          Effect.andThen(Effect.sleep(coalesce)),
          Effect.forever,
          Effect.forkScoped
        )
        const pulse = Effect.sync(() => {
          Latch.openUnsafe(pending)
        })
        const ended = yield* Effect.exit(AppResources.isSurfaceUri(uri) ? followSurface(uri, pulse, opened) : followApp(uri, pulse, opened))
        yield* opened
        yield* logEnd(uri, ended)
        yield* onChange
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

    // Checked first, so a refused move touches nothing; then the connection is retired BEFORE the
    // move is published, so nothing reacting to the move (a subscription re-opening) can lease the
    // connection the old roster dialled. Uninterruptible: the move never stops between the two.
    const reroster = (surfaces: { readonly [sibling: string]: Bundle.Sibling }) =>
      Effect.gen(function*() {
        const now = yield* roster.current
        yield* Resolver.resolveBundle({ ...now.bundle, surfaces })
        yield* pool.retire
        yield* roster.reroster(surfaces)
      }).pipe(Effect.uninterruptible)

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
      watch,
      watching: Ref.get(watchers)
    } satisfies Face
  })
