// `npm start`: the example task board as an MCP server.
//   npm start                 serve it over Streamable HTTP on 127.0.0.1 (port from PORT, default 3000)
//   npm -s run stdio          serve it over stdio (nothing but protocol on stdout) for an MCP host
//   npm run tour              a short in-process tour: an SDK client lists, calls and reads it
//   npm -s run acp            the example ACP agent on stdio, for Zed or any ACP client (examples/acp)
// Each mode is its own script, so no command needs a bare `--` (which some hosts drop, turning
// `npm start -- --stdio` into `npm start`). Any other argument is refused: a host that meant stdio
// must not be left waiting on an HTTP server. Every mode ends when the process that started it ends
// (parent.ts), and the stdio modes also when their host closes stdin.
// Over HTTP, REDIS_URL (e.g. redis://127.0.0.1:6379) keeps the sessions and the board in that
// Redis, so several instances behind a load balancer serve one board with no session affinity;
// ALLOWED_HOSTS (comma-separated `name` or `name:port`) adds the names clients reach it by, such
// as the balancer's address. AUTH_ISSUER (an OAuth 2.1 / OpenID issuer URL) serves the board behind
// bearer tokens from that issuer, for the resource PUBLIC_URL (default the listening URL): a token
// with board:read sees the reads and lists, board:write also the procedures that change the board.
// Over HTTP the operator's console is served at /console beside /mcp (behind AUTH_ISSUER, to tokens
// with the console scope).
// Each mode loads only what it runs (a host starting the stdio server waits for no HTTP stack, SDK
// client or ACP agent), so the modes import their faces when chosen.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Config, Console, Effect, Exit, Layer, Option, References, Runtime } from "effect"
import type { McpHttp as Http } from "effect-surface/mcp"
import { serverOptions, serverOptionsOver } from "./board/app.ts"
import * as BoardState from "./board/state.ts"
import { whileParentLives } from "./parent.ts"

const load = <A>(module: () => Promise<A>): Effect.Effect<A> => Effect.promise(module)

const stdio = Effect.gen(function*() {
  const { serveStdio } = yield* load(() => import("effect-surface/mcp/stdio"))
  return yield* serveStdio(yield* serverOptions)
})

// The board and the sessions in Redis, for the scope's life.
const inRedis = (url: string) =>
  Effect.gen(function*() {
    const { McpHttp, McpHttpRedis } = yield* load(() => import("effect-surface/mcp"))
    const NodeRedis = yield* load(() => import("@effect/platform-node/NodeRedis"))
    const context = yield* Layer.build(
      McpHttpRedis.layer().pipe(Layer.provideMerge(
        NodeRedis.layer({ url, disableOfflineQueue: true }).pipe(
          // The client warns at every reconnect attempt; the face says once that Redis went, once it is back.
          Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
        )
      ))
    )
    const state = yield* BoardState.redis().pipe(Effect.provideContext(context))
    return (http: Http.HttpOptions) =>
      McpHttp.serve({ ...serverOptionsOver(state), http }).pipe(withConsole, Effect.provideContext(context))
  })

const inMemory = Effect.gen(function*() {
  const { McpHttp } = yield* load(() => import("effect-surface/mcp"))
  const options = yield* serverOptions
  return (http: Http.HttpOptions) => withConsole(McpHttp.serve({ ...options, http }))
})

// The operator's console beside the endpoint (this machine only): completing a task cannot be
// undone, so an agent's `tasks_complete` waits there for a person's Approve or Deny. CONSOLE_HOLD
// (comma-separated tool names, or `none`) says which calls wait instead.
const withConsole = <A, E, R>(serving: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const { McpConsole } = yield* load(() => import("effect-surface/mcp"))
    const held = yield* Config.String("CONSOLE_HOLD").pipe(Config.withDefault("tasks_complete"), Effect.orDie)
    const hold = held.split(",").map((name) => name.trim()).filter((name) => name !== "" && name !== "none")
    const console = yield* McpConsole.make({ hold, approvalTimeout: "5 minutes" })
    return yield* Effect.provideService(serving, McpConsole.Console, console)
  })

// A port another process holds is told as a sentence with the way out, not as a stack trace.
const portTaken = <E>(error: E) =>
  Effect.gen(function*() {
    const { McpHttp } = yield* load(() => import("effect-surface/mcp"))
    if (!(error instanceof McpHttp.PortInUse)) return yield* Effect.fail(error)
    yield* Console.error(
      `port ${error.port} on ${error.host} is already in use by another process, so the MCP server cannot listen there. ` +
        `PORT picks another: PORT=${error.port + 1} npm start (PORT=0: any free one).`
    )
    process.exitCode = 1
    return yield* Effect.interrupt
  })

// Behind AUTH_ISSUER: the resource server, its tokens checked against the issuer's published keys.
const behindIssuer = (issuer: string, resource: Option.Option<string>) =>
  Effect.gen(function*() {
    const { McpAuth, McpTokenVerifier } = yield* load(() => import("effect-surface/mcp"))
    return McpAuth.layer({
      ...(Option.isSome(resource) ? { resource: resource.value } : {}),
      scopesSupported: ["board:read", "board:write"],
      resourceName: "Task board"
    }).pipe(Layer.provide(McpTokenVerifier.layerJwt({ issuer })))
  })

const http = Effect.gen(function*() {
  // Any integer Node accepts; `PORT=0` picks a free port, and the line below prints the one bound.
  const port = yield* Config.Int("PORT").pipe(Config.withDefault(3000))
  const redis = yield* Config.option(Config.String("REDIS_URL"))
  const issuer = yield* Config.option(Config.String("AUTH_ISSUER"))
  const publicUrl = yield* Config.option(Config.String("PUBLIC_URL"))
  const hosts = yield* Config.option(Config.String("ALLOWED_HOSTS"))
  const names = Option.map(hosts, (list) => list.split(",").map((name) => name.trim()).filter((name) => name !== ""))
  const serve = yield* Option.match(redis, { onNone: () => inMemory, onSome: inRedis })
  // Built in the server's scope, so the issuer's keys stay cached for its life.
  const auth = Option.isSome(issuer)
    ? Option.some(yield* Layer.build(yield* behindIssuer(issuer.value, publicUrl)))
    : Option.none()
  const served = yield* serve(Option.match(names, {
    onNone: () => ({ port }),
    onSome: (names) => ({ port, allowedHosts: ["localhost", "127.0.0.1", "[::1]", ...names] })
  })).pipe(
    (serving) => Option.isSome(auth) ? Effect.provide(serving, auth.value) : serving,
    Effect.catch(portTaken)
  )
  yield* Console.log(`Task board MCP server at ${served.url}`)
  if (served.console !== undefined) yield* Console.log(`Operator console at ${served.console}`)
  if (Option.isSome(issuer)) {
    yield* Console.log(
      `Behind ${issuer.value}: tokens for ${Option.getOrElse(publicUrl, () => served.url)} with board:read, board:write`
    )
  }
  if (Option.isSome(redis)) yield* Console.log(`Sessions and board kept in Redis at ${redis.value}`)
  yield* Console.log(`Add it to an MCP host, e.g. Claude Code:\n  claude mcp add --transport http board ${served.url}`)
  yield* Console.log("Ctrl-C stops it.")
  return yield* Effect.never
}).pipe(Effect.scoped)

const tour = Effect.gen(function*() {
  const { McpFace, McpSession2025 } = yield* load(() => import("effect-surface/mcp/stdio"))
  const { Client } = yield* load(() => import("@modelcontextprotocol/sdk/client/index.js"))
  const { InMemoryTransport } = yield* load(() => import("@modelcontextprotocol/sdk/inMemory.js"))
  const face = yield* McpFace.make(yield* serverOptions)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  yield* McpSession2025.connect(face, serverSide)
  const client = new Client({ name: "tour", version: "0.1.0" })
  yield* Effect.acquireRelease(
    Effect.promise(() => client.connect(clientSide)),
    () => Effect.promise(() => client.close())
  )
  const { tools } = yield* Effect.promise(() => client.listTools())
  yield* Console.log(`tools: ${tools.map((t) => t.name).join(", ")}`)
  const added = yield* Effect.promise(() =>
    client.callTool({ name: "tasks_add", arguments: { title: "try effect-surface" } })
  )
  yield* Console.log(`tasks_add → ${JSON.stringify(added.structuredContent)}`)
  const read = yield* Effect.promise(() => client.readResource({ uri: "surface://streams/activity" }))
  yield* Console.log(`surface://streams/activity → ${JSON.stringify(read.contents[0])}`)
  yield* Console.log(`\nServe it to an MCP host with: npm start (HTTP), or npm -s run stdio`)
}).pipe(Effect.scoped)

const acp = Effect.flatMap(load(() => import("./acp/main.ts")), (agent) => agent.acp)

const modes: ReadonlyMap<string, Effect.Effect<void, unknown>> = new Map([
  ["--stdio", stdio],
  ["--tour", tour],
  ["--acp", acp]
])
const [mode, ...extra] = process.argv.slice(2)
const main = mode === undefined ? http : modes.get(mode)

if (main === undefined || extra.length > 0) {
  const refused = main === undefined ? `unknown argument ${JSON.stringify(mode)}`
    : `second argument ${JSON.stringify(extra[0])}`
  process.stderr.write(
    `examples/main.ts: ${refused}; it takes one of --stdio (serve over stdio), --tour (an in-process tour), ` +
      `--acp (the example ACP agent on stdio), or nothing (serve over HTTP)\n`
  )
  process.exitCode = 2
} else {
  NodeRuntime.runMain(whileParentLives(main), {
    disableErrorReporting: false,
    // Ctrl-C is how this server is meant to stop: once its scope has closed every session, that is
    // a clean exit (0), not the 130 an interrupted program reports.
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
  })
}
