// Behaviour 9, lifetime: connections live in the core's ConnectionPool, one per server. Closing the
// toolset kills every stdio child (counted: no orphans), sends DELETE for an HTTP session and ends an
// SSE stream, on every exit path — a failed or interrupted connect included. A server that died is
// re-dialled on the next call (one down when the toolset was made, in the background); a call in
// flight when it died is not sent again, and its failure names the server and says a retry may not
// be safe.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope, Stream } from "effect"
import { McpCallResult, McpToolset } from "effect-surface/client"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { drifting, plain } from "./drifting.ts"
import {
  childrenMentioning,
  entry,
  eventually,
  everythingHttp,
  everythingStdio,
  filesystemStdio,
  memoryStdio,
  pause,
  recordingProxy,
  tempDir
} from "./servers.ts"

const faultyScript = fileURLToPath(new URL("./fixtures/faulty-server.ts", import.meta.url))
const driftScript = fileURLToPath(new URL("./fixtures/drifting-server.ts", import.meta.url))
const hang = { name: "mute", type: "stdio" as const, command: process.execPath, args: [faultyScript, "hang"] }
const referenceChildren = () =>
  [entry("server-everything"), entry("server-memory"), entry("server-filesystem")].flatMap((marker) =>
    childrenMentioning(marker)
  )

/** Run `use` on a toolset made in a scope of its own, closed with `exit`; answers what `use` answered. */
const inOwnScope = <A>(
  make: Effect.Effect<McpToolset.Toolset, unknown, Scope.Scope>,
  use: (t: McpToolset.Toolset) => Effect.Effect<A>
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const toolset = yield* Scope.provide(scope)(make)
    const answer = yield* use(toolset)
    return { answer, close: (exit: Exit.Exit<unknown, unknown>) => Scope.close(scope, exit) }
  })

describe("closing", () => {
  it.live(
    "closing kills every stdio child, on success and on failure alike: no orphan process is left",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        assert.lengthOf(referenceChildren(), 0)
        for (const exit of [Exit.void, Exit.fail("the agent gave up"), Exit.die(new Error("boom"))]) {
          const { answer, close } = yield* inOwnScope(
            McpToolset.make([everythingStdio(), memoryStdio(Path.join(dir, "m.jsonl")), filesystemStdio([dir])]),
            () => Effect.sync(referenceChildren)
          )
          assert.lengthOf(answer, 3)
          yield* close(exit)
          yield* eventually(() => referenceChildren().length === 0, "every child has exited")
        }
      }),
    { timeout: 60_000 }
  )

  it.live(
    "closing deletes the HTTP session: the server receives DELETE with the session's id",
    () =>
      Effect.gen(function*() {
        const upstream = yield* everythingHttp("streamableHttp")
        const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
        const { answer: session, close } = yield* inOwnScope(
          McpToolset.make([{ name: "docs", type: "streamable-http", url: `${proxy.origin}/mcp` }], {
            allowedHosts: ["127.0.0.1"]
          }),
          (toolset) =>
            Effect.map(
              Effect.orDie(toolset.call("docs__echo", { message: "hi" })),
              () => proxy.bodies("tools/call")[0]?.headers["mcp-session-id"]
            )
        )
        assert.isString(session)
        assert.lengthOf(proxy.requests.filter((r) => r.method === "DELETE"), 0)
        yield* close(Exit.void)
        const deletes = proxy.requests.filter((r) => r.method === "DELETE")
        assert.lengthOf(deletes, 1)
        assert.strictEqual(deletes[0]?.headers["mcp-session-id"], session)
      }),
    { timeout: 60_000 }
  )

  it.live("closing ends the SSE stream", () =>
    Effect.gen(function*() {
      const upstream = yield* everythingHttp("sse")
      const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
      const { close } = yield* inOwnScope(
        McpToolset.make([{ name: "legacy", type: "sse", url: `${proxy.origin}/sse` }], { allowedHosts: ["127.0.0.1"] }),
        () => Effect.void
      )
      assert.strictEqual(proxy.open(), 1)
      yield* close(Exit.void)
      yield* eventually(() => proxy.open() === 0, "the event stream has ended")
    }), { timeout: 60_000 })

  it.live("an SSE connect whose handshake never answers ends its event stream", () =>
    Effect.gen(function*() {
      const upstream = yield* everythingHttp("sse")
      const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`, {
        hold: (r) => r.body.includes("\"method\":\"initialize\"")
      })
      const toolset = yield* McpToolset.make([{ name: "legacy", type: "sse", url: `${proxy.origin}/sse` }], {
        allowedHosts: ["127.0.0.1"],
        connectTimeoutMs: 500
      })
      assert.strictEqual((yield* toolset.diagnostics)[0]?.kind, "server-unavailable")
      assert.lengthOf(proxy.requests.filter((r) => r.method === "GET"), 1, "one dial, with its stream")
      yield* eventually(() => proxy.open() === 0, "its event stream has ended")
    }), { timeout: 60_000 })

  it.live("a connect that times out leaves no child behind, and the toolset still loads", () =>
    Effect.gen(function*() {
      const toolset = yield* McpToolset.make([hang, memoryStdio("/dev/null/none")], { connectTimeoutMs: 500 })
      assert.strictEqual(
        (yield* toolset.diagnostics).find((d) => d.kind === "server-unavailable")?.kind,
        "server-unavailable"
      )
      yield* eventually(() => childrenMentioning(faultyScript).length === 0, "the mute server's children have exited")
    }), { timeout: 60_000 })

  it.live("interrupting a toolset while it connects leaves no child behind", () =>
    Effect.gen(function*() {
      const making = yield* Effect.forkChild(Effect.scoped(McpToolset.make([hang])))
      yield* eventually(() => childrenMentioning(faultyScript).length === 1, "the mute server started")
      yield* Fiber.interrupt(making)
      yield* eventually(() => childrenMentioning(faultyScript).length === 0, "the mute server has exited")
    }), { timeout: 60_000 })
})

describe("a server that dies", () => {
  it.live(
    "a server down when the toolset is made is dialled again in the background, and its tools appear once it answers",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const server = drifting(dir, [plain("add")])
        // Its program is not there yet: every dial fails.
        const later = Path.join(dir, "later.mjs")
        const toolset = yield* McpToolset.make([{
          ...server.config,
          args: [later, ...(server.config.args ?? []).slice(1)]
        }])
        assert.strictEqual((yield* toolset.tools).size, 0)
        assert.isTrue((yield* toolset.diagnostics).some((d) => d.kind === "server-unavailable"))
        Fs.writeFileSync(later, `import ${JSON.stringify(driftScript)}\n`)
        const back = yield* toolset.changes.pipe(
          Stream.filter((tools) => tools.has("drift__add")),
          Stream.runHead,
          Effect.timeout("20 seconds")
        )
        assert.isTrue(back._tag === "Some", "its tools appeared without a call")
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("drift__add", {})), "add ran")
        assert.include(
          (yield* toolset.diagnostics).find((d) => d.kind === "tools-changed")?.message ?? "",
          "1 added (drift__add)"
        )
      }),
    { timeout: 60_000 }
  )

  it.live("is re-dialled on the next call, which succeeds", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const marker = entry("server-memory")
      const toolset = yield* McpToolset.make([memoryStdio(Path.join(dir, "m.jsonl"))])
      yield* toolset.call("memory__create_entities", {
        entities: [{ name: "kept", entityType: "t", observations: [] }]
      })
      const [first] = childrenMentioning(marker)
      process.kill(first!, "SIGKILL")
      yield* eventually(() => childrenMentioning(marker).length === 0, "the server died")
      // Its pipes close just after it exits; the pool drops the connection when they do.
      yield* pause(300)
      const graph = yield* toolset.call("memory__read_graph", {})
      assert.include(McpCallResult.textOf(graph), "kept")
      const [second] = childrenMentioning(marker)
      assert.isNumber(second)
      assert.notStrictEqual(second, first)
    }), { timeout: 60_000 })

  it.live(
    "mid-call: the call is not sent again; its failure names the server and says a retry may not be safe",
    () =>
      Effect.gen(function*() {
        const marker = entry("server-everything")
        const toolset = yield* McpToolset.make([everythingStdio()])
        const [pid] = childrenMentioning(marker)
        const fiber = yield* Effect.forkChild(
          Effect.flip(toolset.call("everything__trigger-long-running-operation", { duration: 600, steps: 1 }))
        )
        yield* pause(300)
        process.kill(pid!, "SIGKILL")
        const failure = yield* Fiber.join(fiber)
        assert.strictEqual(failure._tag, "ServerUnavailable")
        if (failure._tag === "ServerUnavailable") {
          assert.isFalse(failure.retrySafe)
          assert.strictEqual(failure.server, "everything")
          assert.include(failure.message, "MCP server \"everything\"")
          assert.include(failure.message, "a retry is safe only if acting twice is")
        }
        // Nothing was re-sent: no new server was started for it. The next call starts one.
        yield* pause(300)
        assert.lengthOf(childrenMentioning(marker), 0)
        assert.strictEqual(
          McpCallResult.textOf(yield* toolset.call("everything__echo", { message: "again" })),
          "Echo: again"
        )
        assert.lengthOf(childrenMentioning(marker), 1)
      }),
    { timeout: 60_000 }
  )
})
