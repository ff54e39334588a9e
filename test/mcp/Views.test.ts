// Views for hosts that render MCP Apps: a tool asked to show one (by its expose map, for the whole
// surface or entry by entry, or by the server's options) links to its `ui://` view only for a client
// declaring the extension, in both revisions; the view is listed and read as an MCP App document
// with its CSP; a client without the extension sees the tools and resources as without views; and a
// caller is shown and may read only the views of the tools its scopes reach.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, References, Stream } from "effect"
import { Expose, Identity } from "effect-surface"
import { McpAuth, McpFace, McpHttp, McpTokenVerifier, McpViews } from "effect-surface/mcp"
import {
  Board,
  boardExpose,
  serverOptions,
  Stopwatch,
  stopwatchExpose,
  stopwatchSibling
} from "../../examples/board/app.ts"

const UI = { extensions: { [McpViews.EXTENSION]: { mimeTypes: [McpViews.MIME] } } }
// The extension declared bare, naming no document type (Mastra's client sends this by default).
const BARE = { extensions: { [McpViews.EXTENSION]: {} } }
type Capabilities = typeof UI | typeof BARE | {}
const lap = McpViews.uriOf("stopwatch_watch_lap")
const PROCEDURES = ["tasks_add", "tasks_complete", "tasks_open", "board_focus", "stopwatch_watch_lap"]

interface Tool {
  readonly name: string
  readonly _meta?: { readonly [key: string]: unknown } | undefined
}
interface Listed {
  readonly tools: ReadonlyArray<Tool>
  readonly resources: ReadonlyArray<
    { readonly uri: string; readonly mimeType?: string | undefined; readonly _meta?: unknown }
  >
  readonly read: (uri: string) => Promise<ReadonlyArray<{ readonly [key: string]: unknown }>>
  /** A call as a view's form makes it, through the host's session. */
  readonly call: (name: string, args: Record<string, unknown>) => Promise<unknown>
}

// The board's expose maps as written, or as given: `plain` asks for no view anywhere.
interface Maps {
  readonly board?: Expose.ExposeMap<typeof Board>
  readonly stopwatch?: Expose.ExposeMap<typeof Stopwatch>
}
const { views: _views, ...boardWithoutViews } = boardExpose
const plain: Maps = { board: boardWithoutViews }

const withMaps = (maps: Maps) =>
  Effect.map(serverOptions, (options) => ({
    ...options,
    core: { surface: Board, expose: maps.board ?? boardExpose },
    surfaces: { stopwatch: { ...stopwatchSibling, expose: maps.stopwatch ?? stopwatchExpose } }
  }))

const serve = (views: McpViews.Options | undefined, maps: Maps = plain) =>
  Effect.flatMap(
    withMaps(maps),
    (options) =>
      McpHttp.serve({ ...options, ...(views === undefined ? {} : { views }), http: { port: 0 } }).pipe(
        Effect.provideService(References.MinimumLogLevel, "Warn")
      )
  )

const v1 = (url: string, capabilities: Capabilities) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "views", version: "1.0.0" }, { capabilities })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  ).pipe(Effect.flatMap((client) =>
    Effect.promise(async (): Promise<Listed> => ({
      tools: (await client.listTools()).tools,
      resources: (await client.listResources()).resources,
      read: async (uri) => (await client.readResource({ uri })).contents,
      call: (name, args) => client.callTool({ name, arguments: args })
    }))
  ))

/** What a v2 client lists, and its read. */
const listedV2 = (client: ClientV2) =>
  Effect.promise(async (): Promise<Listed> => ({
    tools: (await client.listTools()).tools,
    resources: (await client.listResources()).resources,
    read: async (uri) =>
      (await client.readResource({ uri })).contents as ReadonlyArray<{ readonly [key: string]: unknown }>,
    call: (name, args) => client.callTool({ name, arguments: args })
  }))

const v2 = (url: string, capabilities: Capabilities) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new ClientV2({ name: "views", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        capabilities
      })
      await client.connect(new TransportV2(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  ).pipe(Effect.flatMap(listedV2))

const linksOf = (listed: { readonly tools: ReadonlyArray<Tool> }) =>
  Object.fromEntries(listed.tools.flatMap((tool) => {
    const ui = tool._meta?.["ui"] as { readonly resourceUri?: string } | undefined
    return ui?.resourceUri === undefined ? [] : [[tool.name, ui.resourceUri]]
  }))

// The board behind a resource server whose test verifier knows a reader and a writer, views on.
const serveBehind = Effect.flatMap(
  serverOptions,
  (options) =>
    McpHttp.serve({ ...options, views: { procedures: true }, http: { port: 0 } }).pipe(
      Effect.provide(
        McpAuth.layer({ scopesSupported: ["board:read", "board:write"] }).pipe(
          Layer.provide(McpTokenVerifier.layerTest({
            issuer: "https://auth.test",
            tokens: {
              reader: Identity.token({ subject: "ada", clientId: "t", scopes: ["board:read"] }),
              writer: Identity.token({ subject: "bo", clientId: "t", scopes: ["board:read", "board:write"] })
            }
          }))
        )
      ),
      Effect.provideService(References.MinimumLogLevel, "Warn")
    )
)

// A declaring v2 client holding a token, for the scope's life: its lists, and a read.
const views = (url: string, pin: boolean, token: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new ClientV2({ name: "views", version: "1.0.0" }, {
        versionNegotiation: pin ? { mode: { pin: "2026-07-28" } } : { mode: "legacy" },
        capabilities: UI
      })
      const withToken: typeof fetch = (input, init) => {
        const headers = new Headers(init?.headers)
        headers.set("authorization", `Bearer ${token}`)
        return fetch(input, { ...init, headers })
      }
      await client.connect(new TransportV2(new URL(url), { fetch: withToken }))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  ).pipe(Effect.flatMap(listedV2))

const viewsOf = (listed: Listed) => listed.resources.filter((r) => r.uri.startsWith("ui://"))

// Both revisions are held to the same rules, each with its own official client.
const revisions = [
  { era: "2025-11-25", connect: v1 },
  { era: "2026-07-28", connect: v2 }
] as const

describe("views for hosts rendering MCP Apps", () => {
  for (const { connect, era } of revisions) {
    it.live(`on ${era} a declaring client sees each procedure linked to a listed, readable view with its CSP`, () =>
      Effect.gen(function*() {
        const { url } = yield* serve({ procedures: true })
        const listed = yield* connect(url, UI)
        assert.deepStrictEqual(
          linksOf(listed),
          Object.fromEntries(PROCEDURES.map((name) => [name, `ui://views/tools/${name}`]))
        )
        const views = viewsOf(listed)
        assert.sameMembers(views.map((r) => r.uri), PROCEDURES.map(McpViews.uriOf))
        for (const view of views) {
          assert.strictEqual(view.mimeType, McpViews.MIME)
          assert.deepStrictEqual(view._meta, { ui: { csp: {}, permissions: {}, prefersBorder: true } })
        }
        const [contents] = yield* Effect.promise(() => listed.read("ui://views/tools/tasks_add"))
        assert.strictEqual(contents?.["mimeType"], McpViews.MIME)
        assert.deepStrictEqual(contents?.["_meta"], { ui: { csp: {}, permissions: {}, prefersBorder: true } })
        assert.match(String(contents?.["text"]), /^<!doctype html>/)
        assert.include(String(contents?.["text"]), `name="title"`)
      }))

    it.live(
      `on ${era} a client without the extension, or declaring it bare, sees the tools and resources exactly as without views`,
      () =>
        Effect.gen(function*() {
          const without = yield* connect((yield* serve(undefined)).url, {})
          for (const url of [(yield* serve({ procedures: true })).url, (yield* serve(undefined, {})).url]) {
            for (const capabilities of [{}, BARE]) {
              const seen = yield* connect(url, capabilities)
              assert.deepStrictEqual(seen.tools, without.tools)
              assert.deepStrictEqual(seen.resources, without.resources)
            }
          }
        })
    )

    it.live(`on ${era} only the tools asked for link to a view, and an authored page is served as written`, () =>
      Effect.gen(function*() {
        const html = "<!doctype html><title>mine</title><p>my own view</p>"
        const { url } = yield* serve({
          tools: { tasks_add: true, board_progress: { html, csp: { connectDomains: ["https://api.example.com"] } } }
        })
        const listed = yield* connect(url, UI)
        assert.deepStrictEqual(linksOf(listed), {
          tasks_add: "ui://views/tools/tasks_add",
          board_progress: "ui://views/tools/board_progress"
        })
        const [authored] = yield* Effect.promise(() => listed.read("ui://views/tools/board_progress"))
        assert.strictEqual(authored?.["text"], html)
        assert.deepStrictEqual(authored?.["_meta"], {
          ui: { csp: { connectDomains: ["https://api.example.com"] }, permissions: {}, prefersBorder: true }
        })
      }))

    it.live(
      `on ${era} an expose map's views: true links every procedure it exposes, an entry's view: false leaves one out, and a sibling's entry asks for its own`,
      () =>
        Effect.gen(function*() {
          // No views in the server's options: only the maps ask.
          const { url } = yield* serve(undefined, {
            board: Expose.make(Board, {
              ...boardExpose,
              procedures: { ...boardExpose.procedures, "board.focus": { scope: "board:write", view: false } },
              views: true
            }),
            stopwatch: Expose.make(Stopwatch, { ...stopwatchExpose, procedures: { "watch.lap": { view: true } } })
          })
          const listed = yield* connect(url, UI)
          const linked = ["tasks_add", "tasks_complete", "tasks_open", "stopwatch_watch_lap"]
          assert.deepStrictEqual(
            linksOf(listed),
            Object.fromEntries(linked.map((name) => [name, McpViews.uriOf(name)]))
          )
          assert.sameMembers(viewsOf(listed).map((r) => r.uri), linked.map(McpViews.uriOf))
          const [page] = yield* Effect.promise(() => listed.read(McpViews.uriOf("stopwatch_watch_lap")))
          assert.strictEqual(page?.["mimeType"], McpViews.MIME)
          assert.deepStrictEqual(page?.["_meta"], { ui: { csp: {}, permissions: {}, prefersBorder: true } })
          const refused = yield* Effect.flip(Effect.tryPromise(() => listed.read(McpViews.uriOf("board_focus"))))
          assert.include(String(refused.cause), "ui://views/tools/board_focus")
        })
    )

    it.live(
      `on ${era} the server's options name a tool over its expose map, and the map's false holds against procedures: true`,
      () =>
        Effect.gen(function*() {
          const { url } = yield* serve({ procedures: true, tools: { tasks_open: false } }, {
            board: Expose.make(Board, {
              ...boardExpose,
              procedures: { ...boardExpose.procedures, "tasks.complete": { scope: "board:write", view: false } }
            })
          })
          const listed = yield* connect(url, UI)
          assert.sameMembers(Object.keys(linksOf(listed)), ["tasks_add", "board_focus", "stopwatch_watch_lap"])
        })
    )
  }

  it.effect("a caller is shown, and may read, only the views of the tools its scopes reach", () =>
    Effect.gen(function*() {
      // The board's own expose map asks for its views (views: true), each under its entry's scope.
      const face = yield* McpFace.make(yield* serverOptions)
      const reader = Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"] })
      const shown = McpViews.present(yield* face.view(reader), true)
      assert.deepStrictEqual(linksOf({ tools: shown.tools.map((tool) => tool as unknown as Tool) }), {
        tasks_open: "ui://views/tools/tasks_open"
      })
      assert.deepStrictEqual(shown.resources.filter((r) => String(r["uri"]).startsWith("ui://")).map((r) => r["uri"]), [
        "ui://views/tools/tasks_open"
      ])
      // A read of a view needs its tool's scope: refused to this caller for tasks_add, let through for tasks_open.
      const refused = yield* face.needs("resources/read", { uri: "ui://views/tools/tasks_add" }, reader)
      assert.strictEqual(refused?.scope, "board:write")
      assert.isFalse(Identity.allows(reader, refused?.scope))
      const allowed = yield* face.needs("resources/read", { uri: "ui://views/tools/tasks_open" }, reader)
      assert.strictEqual(allowed?.scope, "board:read")
      assert.isTrue(Identity.allows(reader, allowed?.scope))
    }).pipe(Effect.scoped))
  it.effect("views follow the roster and stay beside the app's own resources when those are replaced", () =>
    Effect.gen(function*() {
      const face = yield* McpFace.make({ ...(yield* serverOptions), views: { procedures: true } })
      const uris = Effect.map(face.listResources, (listed) => listed.map((r) => String(r["uri"])))
      yield* face.setResources({
        resources: { "docs://readme": { name: "readme", read: Effect.succeed({ text: "#" }) } }
      })
      assert.includeMembers(yield* uris, ["docs://readme", ...PROCEDURES.map(McpViews.uriOf)])
      // Without its stopwatch sibling the roster has no stopwatch_watch_lap, and so no view of it.
      yield* face.reroster({})
      yield* face.appResources.changes.pipe(
        Stream.filter((compiled) => !compiled.advertisedResources.some((r) => r["uri"] === lap)),
        Stream.runHead
      )
      const after = yield* uris
      assert.notInclude(after, lap)
      assert.includeMembers(after, ["docs://readme", McpViews.uriOf("tasks_add")])
    }).pipe(Effect.scoped))
  it.live("behind authorization, in both revisions, a token is shown, may read and may call only the views and tools its scopes reach", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBehind
      for (const pin of [false, true]) {
        const reader = yield* views(url, pin, "reader")
        assert.deepStrictEqual(linksOf(reader), { tasks_open: McpViews.uriOf("tasks_open") }, `pinned: ${pin}`)
        assert.deepStrictEqual(viewsOf(reader).map((r) => r.uri), [McpViews.uriOf("tasks_open")])
        const refused = yield* Effect.flip(Effect.tryPromise(() => reader.read(McpViews.uriOf("tasks_add"))))
        assert.match(String(refused.cause), /Insufficient scope: required "[^"]*board:write/)
        // The call a view's form would make, through the same session, is refused the same way.
        const called = yield* Effect.flip(Effect.tryPromise(() => reader.call("tasks_add", { title: "from a view" })))
        assert.match(String(called.cause), /Insufficient scope: required "[^"]*board:write/)
        const writer = yield* views(url, pin, "writer")
        assert.sameMembers(Object.keys(linksOf(writer)), PROCEDURES)
        const [page] = yield* Effect.promise(() => writer.read(McpViews.uriOf("tasks_add")))
        assert.strictEqual(page?.["mimeType"], McpViews.MIME)
      }
    }))
})
