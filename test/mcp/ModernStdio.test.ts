// MCP 2026-07-28 on one channel, through the official v2 client: the same stdio command (a real child
// process) and the same in-memory connection serve whichever era the client opens with; a 2026
// client's questions, cancellations and listen streams travel on the one channel they share.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Deferred, Effect } from "effect"
import { Tools } from "effect-surface"
import { McpConnection, McpFace } from "effect-surface/mcp"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { serverOptions } from "../../examples/board/app.ts"
import { connect, contentOf, greet } from "./modern.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

const stdioArgs = ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"]

const stdio = () =>
  new StdioClientTransport({
    command: process.execPath,
    args: stdioArgs,
    cwd: root,
    stderr: "ignore"
  })

/** The stdio command started with the module-noting preload; `loaded` reads what it loaded, once it has exited. */
const noted = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "loaded-modules-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  const out = Path.join(dir, "loaded.txt")
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "./test/mcp/loadedModules.ts", ...stdioArgs],
    cwd: root,
    env: { ...process.env as Record<string, string>, LOADED_MODULES_OUT: out },
    stderr: "ignore"
  })
  const loaded = Effect.promise(async () => {
    for (let i = 0; i < 200 && !Fs.existsSync(out); i++) await new Promise((done) => setTimeout(done, 50))
    return Fs.readFileSync(out, "utf8").split("\n").filter((url) => url !== "")
  })
  return { transport, loaded }
})

const modernRequestPath = (urls: ReadonlyArray<string>) =>
  urls.filter((url) => /mcp\/v2026\/internal\/(requests|transport)\.[jt]s$/.test(url))

/** The board's face with a tool that asks and one that waits, served on an in-memory channel. */
const inMemory = Effect.gen(function*() {
  const options = yield* serverOptions
  const cancelled = yield* Deferred.make<void>()
  const face = yield* McpFace.make({
    ...options,
    tools: {
      ...options.tools,
      greet,
      stall: Tools.make({
        description: "Waits until cancelled.",
        mutates: false,
        handler: () => Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(cancelled, undefined)))
      })
    }
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const connection = yield* McpConnection.connect(face, serverSide)
  return { face, connection, clientSide, cancelled }
})

describe("MCP 2026-07-28 on one channel", () => {
  it.live("one stdio command serves a 2025 client and a 2026 client alike", () =>
    Effect.gen(function*() {
      const legacy = yield* connect(stdio(), "legacy")
      const modern = yield* connect(stdio(), "auto")
      assert.strictEqual(legacy.getProtocolEra(), "legacy")
      assert.strictEqual(modern.getProtocolEra(), "modern")
      const listedBy = (client: typeof legacy) =>
        Effect.map(Effect.promise(() => client.listTools()), (listed) => listed.tools.map((tool) => tool.name))
      assert.deepStrictEqual(yield* listedBy(modern), yield* listedBy(legacy))
      const add = { name: "tasks_add", arguments: { title: "one" } }
      const a = yield* Effect.promise(() => legacy.callTool(add))
      const b = yield* Effect.promise(() => modern.callTool(add))
      // Each process has its own board: each gets its first task.
      assert.deepStrictEqual(contentOf(b), contentOf(a))
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live(
    "a stdio server loads the 2026 request path only when its client opens in 2026",
    () =>
      Effect.gen(function*() {
        const loadedBy = (mode: "legacy" | "auto") =>
          Effect.gen(function*() {
            const { loaded, transport } = yield* noted
            yield* Effect.scoped(Effect.gen(function*() {
              const client = yield* connect(transport, mode)
              const answered = yield* Effect.promise(() =>
                client.callTool({ name: "tasks_add", arguments: { title: "one" } })
              )
              assert.deepStrictEqual(answered.structuredContent, { id: "t1" })
            }))
            return modernRequestPath(yield* loaded)
          }).pipe(Effect.scoped)
        assert.deepStrictEqual(yield* loadedBy("legacy"), [])
        assert.strictEqual((yield* loadedBy("auto")).length, 2)
      }),
    { timeout: 60_000 }
  )

  it.live("the Promise API's stdio door serves a 2026 client as its Effect door does", () =>
    Effect.gen(function*() {
      const client = yield* connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ["--conditions=effect-surface-source", "test/mcp/promise-stdio-server.ts"],
          cwd: root,
          stderr: "ignore"
        }),
        "pin"
      )
      const added = yield* Effect.promise(() =>
        client.callTool({ name: "tasks_add", arguments: { title: "by promise" } })
      )
      assert.deepStrictEqual(added.structuredContent, { id: "t1" })
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("an in-memory connection is served in the era its client opens with, and a 2026 client's question is a round trip", () =>
    Effect.gen(function*() {
      const { clientSide, connection } = yield* inMemory
      const client = yield* connect(clientSide, "auto", { elicit: () => ({ name: "Ada" }) })
      // Its discovery chose nothing yet: the call does.
      const greeted = yield* Effect.promise(() => client.callTool({ name: "greet", arguments: {} }))
      assert.strictEqual(yield* connection.era, "2026-07-28")
      assert.deepStrictEqual(contentOf(greeted), [{ type: "text", text: "hello Ada" }])
    }).pipe(Effect.scoped))

  it.live("a 2025 client on the same kind of connection gets a session", () =>
    Effect.gen(function*() {
      const { clientSide, connection } = yield* inMemory
      yield* connect(clientSide, "legacy", { elicit: () => ({ name: "Ada" }) })
      assert.strictEqual(yield* connection.era, "2025-11-25")
    }).pipe(Effect.scoped))

  it.live("a 2026 client's cancellation interrupts the call it names", () =>
    Effect.gen(function*() {
      const { cancelled, clientSide } = yield* inMemory
      const client = yield* connect(clientSide, "pin")
      const abort = new AbortController()
      const call = client.callTool({ name: "stall", arguments: {} }, { signal: abort.signal }).catch((error) => error)
      yield* Effect.sleep("100 millis")
      abort.abort()
      yield* Deferred.await(cancelled).pipe(Effect.timeout("5 seconds"))
      yield* Effect.promise(() => call)
    }).pipe(Effect.scoped))

  it.live("a listen stream on the channel hears the resource it asked for, tagged with its own id", () =>
    Effect.gen(function*() {
      const { clientSide } = yield* inMemory
      const client = yield* connect(clientSide, "pin")
      const updates: Array<{ readonly uri: string; readonly tagged: unknown }> = []
      client.setNotificationHandler("notifications/resources/updated", (notification) => {
        updates.push({
          uri: notification.params.uri,
          tagged: notification.params._meta?.["io.modelcontextprotocol/subscriptionId"]
        })
      })
      // A URI nothing serves is refused, naming it.
      const refused = yield* Effect.flip(
        Effect.tryPromise(() =>
          client.listen({ resourceSubscriptions: ["surface://cells/focus", "surface://cells/nothing"] })
        )
      )
      assert.include(String(refused.cause), "surface://cells/nothing")
      const subscription = yield* Effect.promise(() =>
        client.listen({ resourceSubscriptions: ["surface://cells/focus"] })
      )
      assert.deepStrictEqual(subscription.honoredFilter, { resourceSubscriptions: ["surface://cells/focus"] })
      yield* Effect.promise(() => client.callTool({ name: "board_focus", arguments: { value: "listening" } }))
      yield* Effect.promise(async () => {
        for (let waited = 0; waited < 3000 && updates.length === 0; waited += 20) {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })
      assert.strictEqual(updates[0]?.uri, "surface://cells/focus")
      assert.isDefined(updates[0]?.tagged)
      yield* Effect.promise(() => subscription.close())
    }).pipe(Effect.scoped))
})
