/**
 * The operator's console: a live page, served beside an MCP endpoint, showing what agents are shown
 * and what they do, where a person approves the calls a policy holds back.
 *
 * An MCP server puts an application in front of agents; the person running it otherwise sees none of
 * it. Provided as a Layer to `McpHttp.serve`, the console is mounted on the same server (at
 * `/console` by default; absent, nothing is mounted); on a router of one's own, `layerRoutes` mounts
 * its page and `McpHttp.layerRoute({ console: true })` shows it the endpoint's calls. It shows the
 * roster exactly as listed, each call as it happens (caller, tool, decision, outcome, duration;
 * argument values only when `showArguments` is on), the clients seen, the exposed cells' values and
 * any audit rows written to it, all pushed over one event stream.
 * A caller is named by its token's verified subject (behind authorization), beside the name its client
 * gives itself, shown only as that client's claim.
 * A call `hold` names waits for the operator's Approve or Deny, bounded by `approvalTimeout` and
 * refused with a sentence when nobody answers; `layerApproval` offers the same page as the `Approval`
 * service to any other policy that asks. The page opens only from the link the server prints when it
 * starts: its `#key=` never reaches a server, the page keeps it in its tab's `sessionStorage` (bound
 * to scheme, host and port) and sends it with its stream and each decision. So a process on this
 * machine — an agent with a shell, or a server it runs on another port that the operator opens —
 * cannot approve its own call by fetching the page or by collecting what the browser sends it. It
 * answers loopback clients only unless `allowRemote`; behind the endpoint's resource server, only
 * tokens holding its own scope; and every action also needs the token the page's stream issued and a
 * same-origin request.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Approval from "../../core/Approval.ts"
import type * as Identity from "../../core/Identity.ts"
import type * as Json from "../../core/Json.ts"
import * as McpAuth from "../auth/Auth.ts"
import type * as Face from "../face/Face.ts"
import * as ConsoleBus from "./internal/bus.ts"
import * as ConsoleCalls from "./internal/calls.ts"
import * as ConsoleHolds from "./internal/holds.ts"
import * as ConsoleHttp from "./internal/http.ts"
import * as ConsoleRoster from "./internal/roster.ts"
import * as State from "./internal/state.ts"

/**
 * How the console is served and what it holds back.
 *
 * @example
 * ```ts
 * import type { McpConsole } from "effect-surface/mcp"
 *
 * const options: McpConsole.Options = {
 *   hold: (call) => call.tool.startsWith("tasks_delete"),
 *   approvalTimeout: "2 minutes"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  /** Where the page is mounted on the endpoint's server. Default `/console`. */
  readonly path?: `/${string}`
  /** Answer clients that are not on this machine. Default `false`: a request from elsewhere is answered 403. */
  readonly allowRemote?: boolean
  /** Show argument values on the page. Default `false`: the page shows which tool, never what it was given. */
  readonly showArguments?: boolean
  /** Which calls wait for the operator: tool names, or a predicate (one that throws holds). Default none. */
  readonly hold?: ReadonlyArray<string> | ((call: { readonly tool: string; readonly args: unknown }) => boolean)
  /** How long a held call waits before it is refused. Default 2 minutes. */
  readonly approvalTimeout?: Duration.Input
  /** How many calls, decisions and audit rows the page keeps. Default 200. */
  readonly history?: number
  /** The page's heading. Default the server's name. */
  readonly title?: string
  /**
   * With authorization on (`McpAuth.layer`), the scope a bearer token needs to open the page, follow
   * it or decide on it; one without it is answered 403. Default `console`.
   */
  readonly scope?: string
  /**
   * The key the console's link carries: whoever opens the link may decide held calls, so it is
   * printed to the server's own log and output, never served. Default a fresh random key each
   * start. Set one (at least 32 characters, printable ASCII without spaces, since the page sends it
   * as a header; e.g. `openssl rand -hex 32`) when several instances answer under one address, so a
   * page opened from one's link is let in by all.
   */
  readonly key?: string
}

/**
 * What a held call was answered, and by whom: the page (`operator at 127.0.0.1`) or the clock.
 *
 * @example
 * ```ts
 * import { Approval } from "effect-surface"
 * import type { McpConsole } from "effect-surface/mcp"
 *
 * const answered: McpConsole.Answer = { decision: Approval.allow, by: "operator at 127.0.0.1" }
 * ```
 *
 * @since 0.1.0
 */
export interface Answer extends ConsoleHolds.Answer {}

/**
 * The console, as a service: `McpHttp` mounts it when it is in context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpConsole } from "effect-surface/mcp"
 *
 * const waiting = Effect.flatMap(Effect.service(McpConsole.Console), (console) => Effect.map(console.state.snapshot, (s) => s.held.length))
 * ```
 *
 * @since 0.1.0
 */
export class Console extends Context.Service<Console, {
  readonly path: `/${string}`
  /**
   * The page's path with the console's key in its fragment (`/console#key=…`, which a browser sends
   * to no server): the address the operator opens, printed beside the server's URL. Whoever holds it
   * can decide held calls. The older `/console?key=…` opens the page too.
   */
  readonly link: string
  readonly state: State.State
  /**
   * Wrap a face so its calls are shown (and the ones `hold` names wait), following its roster until
   * the scope closes; with `cluster`, shared with the consoles of the other instances.
   */
  readonly attach: (face: Face.Face, cluster?: ConsoleBus.Cluster) => Effect.Effect<Face.Face, never, Scope.Scope>
  /** Put a request to the operator and wait (bounded) for the answer. */
  readonly ask: (request: Approval.Request, caller?: string) => Effect.Effect<Answer>
  /** Answer a held call; `false` when nothing waits under `id`. */
  readonly decide: (id: string, decision: "allow" | "deny", by: string) => Effect.Effect<boolean>
  /** Show an audit row (a guard's, or the application's own) on the page. */
  readonly audit: (row: Json.JsonObject) => Effect.Effect<void>
  /**
   * The page, its event stream and its actions, for the endpoint's router; behind the endpoint's
   * resource server when there is one.
   */
  readonly handler: (auth: McpAuth.Protected | undefined) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    never,
    HttpServerRequest.HttpServerRequest | Scope.Scope
  >
}>()("effect-surface/McpConsole") {}

// A predicate that throws holds the call: a policy that cannot say "let it through" has not.
const holdingOf = (hold: Options["hold"]): (tool: string, args: unknown) => boolean => {
  if (hold === undefined) return () => false
  if (typeof hold === "function") {
    return (tool, args) => {
      try {
        return hold({ tool, args })
      } catch {
        return true
      }
    }
  }
  const names = new Set(hold)
  return (tool) => names.has(tool)
}

// A key anyone could guess would let anyone decide: a short one is a mistake to stop at, not to serve.
// The page sends it as a header, which carries printable ASCII only and loses its outer spaces.
const keyFrom = (secret: string) =>
  secret.length < ConsoleHttp.minimumKeyLength
    ? Effect.die(
      new Error(
        `the console's key must have at least ${ConsoleHttp.minimumKeyLength} characters (it has ${secret.length}): whoever guesses it decides held calls`
      )
    )
    : /^[\x21-\x7e]+$/.test(secret)
    ? Effect.succeed(secret)
    : Effect.die(
      new Error(
        "the console's key must be printable ASCII without spaces (e.g. `openssl rand -hex 32`): the page sends it as a header"
      )
    )

/**
 * Make the console: its state, its held calls and its page.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpConsole } from "effect-surface/mcp"
 *
 * const console = McpConsole.make({ hold: ["tasks_delete"] }) // Effect<Console["Service"]>
 * // A short `key` is a defect with a sentence: a key anyone could guess lets anyone decide.
 * ```
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const key = options.key === undefined ? yield* ConsoleHttp.freshKey : yield* keyFrom(options.key)
  const state = yield* State.make(Math.max(1, Math.floor(options.history ?? 200)))
  const bus = yield* Ref.make(ConsoleBus.alone(state))
  const showArguments = options.showArguments === true
  const holds = yield* ConsoleHolds.make({
    state,
    bus,
    timeout: Duration.fromInputUnsafe(options.approvalTimeout ?? "2 minutes"),
    showArguments
  })
  const title = yield* Ref.make(options.title ?? "effect-surface")
  const seen = yield* Ref.make<ReadonlyMap<string, Identity.Principal>>(new Map())
  const watcher: ConsoleCalls.Watcher = { state, seen, bus, holds, holding: holdingOf(options.hold), showArguments }
  const attach = (face: Face.Face, cluster?: ConsoleBus.Cluster) =>
    Effect.gen(function*() {
      yield* Ref.set(title, options.title ?? face.serverInfo.title ?? face.serverInfo.name)
      if (cluster !== undefined)
        yield* Ref.set(bus, yield* ConsoleBus.join(state, cluster, holds.instance, holds.decideHere))
      yield* ConsoleRoster.follow(face, state, yield* FiberMap.make<string>(), seen).pipe(Effect.forkScoped)
      return { ...face, callTool: ConsoleCalls.watch(face, watcher) } satisfies Face.Face
    })
  const path = options.path ?? "/console"
  const tokens = yield* ConsoleHttp.tokens
  const handler = (auth: McpAuth.Protected | undefined) =>
    ConsoleHttp.handler({
      path,
      allowRemote: options.allowRemote === true,
      auth,
      scope: options.scope ?? "console",
      tokens,
      key,
      title: Ref.get(title),
      state,
      decide: holds.decide
    })
  return Console.of({
    path,
    link: `${path}#key=${encodeURIComponent(key)}`,
    state,
    attach,
    ask: (request, caller = "in process") => holds.ask(request, { caller }),
    decide: holds.decide,
    audit: (row) => state.apply({ _tag: "audit", row }),
    handler
  })
})

/**
 * The console as a layer: `McpHttp.serve` serves the page beside the endpoint while it is provided.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpConsole, McpHttp } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const app = McpHttp.layer({ ...options, http: { port: 3000 } }).pipe(
 *   Layer.provide(McpConsole.layer({ hold: ["tasks_delete"] }))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<Console> => Layer.effect(Console, make(options))

/**
 * The page as the `Approval` service: any policy's *ask* (a client toolset's, a guard's) waits for
 * the operator's Approve or Deny on the console, bounded by its `approvalTimeout`.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpConsole } from "effect-surface/mcp"
 *
 * const approvals = McpConsole.layerApproval.pipe(Layer.provideMerge(McpConsole.layer()))
 * ```
 *
 * @since 0.1.0
 */
export const layerApproval: Layer.Layer<Approval.Approval, never, Console> = Layer.effect(
  Approval.Approval,
  Effect.map(
    Effect.service(Console),
    (console) =>
      Approval.Approval.of({ decide: (request) => Effect.map(console.ask(request), (answer) => answer.decision) })
  )
)

/**
 * The console's page, its event stream and its action as one route under its path (`*`, so the
 * page's own path too): behind the endpoint's resource server when `McpAuth.middleware` is provided
 * to it (every request then needs a token holding the console's scope). `McpHttp.serve` adds it to
 * its router; `layerRoutes` to one's own.
 *
 * @example
 * ```ts
 * import { McpConsole } from "effect-surface/mcp"
 * declare const console: McpConsole.Console["Service"]
 * const page = McpConsole.route(console) // * /console/*
 * ```
 *
 * @since 0.1.0
 */
export const route = (console: Console["Service"]): HttpRouter.Route =>
  HttpRouter.route(
    "*",
    `${console.path}/*`,
    Effect.flatMap(Effect.serviceOption(McpAuth.Bearer), (bearer) => console.handler(Option.getOrUndefined(bearer)))
  )

/**
 * The console in context as a route on the `HttpRouter` in context. Its calls are those of the
 * endpoint routed with `McpHttp.layerRoute({ console: true })` beside it, over the same console.
 *
 * @example
 * ```ts
 * import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { McpConsole, McpHttp } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 * import { createServer } from "node:http"
 *
 * declare const options: McpFace.Options
 * const app = Layer.mergeAll(McpHttp.layerRoute({ ...options, console: true }), McpConsole.layerRoutes).pipe(
 *   Layer.provide(McpConsole.layer({ hold: ["tasks_delete"] }))
 * )
 * const server = HttpRouter.serve(app).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port: 3000 })))
 * ```
 *
 * @since 0.1.0
 */
export const layerRoutes: Layer.Layer<never, never, HttpRouter.HttpRouter | Console> = HttpRouter.addAll(
  Effect.map(Effect.service(Console), (console) => [route(console)])
)
