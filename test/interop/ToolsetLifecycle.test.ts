// The toolset's lifecycle against real server processes: a hung server beside a healthy one holds
// the toolset up no longer than its connect deadline and is killed though it ignores SIGTERM; a
// server that dies at start is reported with its exit code and what it said on stderr; a tool that
// can only be called as a task is left out of a 2025 session, with a diagnostic saying why. Every
// fixture process has ended when each case does.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpToolset, mcpTools } from "effect-surface/client"
import { fileURLToPath } from "node:url"
import { childrenMentioning, eventually, everythingStdio } from "../client/servers.ts"

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
const hungScript = fixture("lifecycle-hung.ts")
const dyingScript = fixture("lifecycle-dying.ts")
const hung = { name: "stuck", type: "stdio" as const, command: process.execPath, args: [hungScript] }
const dying = { name: "broken", type: "stdio" as const, command: process.execPath, args: [dyingScript] }

// The hung server's own deadline; the healthy one keeps the default, so a slow start of it under
// load is not mistaken for the hung one's.
const CONNECT_MS = 5_000

describe("a hung server beside a healthy one", () => {
  it.live(
    "the toolset resolves within the hung server's connect deadline with the healthy server's tools, and the hung child, which ignores SIGTERM, is killed",
    () =>
      Effect.gen(function*() {
        const started = performance.now()
        const toolset = yield* Effect.promise(() =>
          mcpTools([{ ...hung, connectTimeoutMs: CONNECT_MS }, everythingStdio()])
        )
        const waited = performance.now() - started
        const firstChild = childrenMentioning(hungScript)
        const killing = performance.now()
        try {
          // Before, two dials and the SDK's kill: 2 × 5 s + 4 s.
          assert.isBelow(waited, CONNECT_MS + 2_000, `mcpTools took ${Math.round(waited)} ms`)
          assert.isDefined(toolset.tools["everything__echo"], "the healthy server's tools are in")
          const stuck = toolset.diagnostics.find((d) => d.kind === "server-unavailable")
          assert.include(stuck?.message ?? "", "MCP server \"stuck\" offers no tools")
          assert.include(stuck?.message ?? "", `no answer within ${CONNECT_MS / 1000}s`)
          // The one dial's child is ended in the background: stdin closed, SIGTERM (ignored), then SIGKILL.
          assert.lengthOf(firstChild, 1, "one dial, one child")
          yield* eventually(
            () => !childrenMentioning(hungScript).includes(firstChild[0]!),
            "the hung child was killed"
          )
          const killed = performance.now() - killing
          assert.isBelow(killed, 6_000, `the hung child took ${Math.round(killed)} ms to be killed`)
        } finally {
          yield* Effect.promise(() => toolset.close())
        }
        yield* eventually(() => childrenMentioning(hungScript).length === 0, "no hung child is left")
        assert.lengthOf(childrenMentioning("server-everything"), 0)
      }),
    { timeout: 60_000 }
  )
})

describe("a server that dies at start", () => {
  it.live(
    "its diagnostic, which the Promise toolset holds, names the server, its exit code and its last stderr lines",
    () =>
      Effect.gen(function*() {
        const toolset = yield* Effect.promise(() => mcpTools([dying, everythingStdio()]))
        try {
          assert.isDefined(toolset.tools["everything__echo"])
          const broken = toolset.diagnostics.find((d) => d.kind === "server-unavailable")
          assert.include(broken?.message ?? "", "MCP server \"broken\" offers no tools")
          assert.include(broken?.message ?? "", "exited with code 3")
          assert.include(broken?.message ?? "", "DATABASE_URL is not set")
          // The same, as data a program can match on.
          assert.deepStrictEqual(broken?.kind === "server-unavailable" ? broken.exited : undefined, {
            code: 3,
            signal: null,
            stderr: ["lifecycle-dying: loading the configuration", "lifecycle-dying: DATABASE_URL is not set"]
          })
        } finally {
          yield* Effect.promise(() => toolset.close())
        }
        assert.lengthOf(childrenMentioning(dyingScript), 0)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "through the Effect API, calling one of its tools fails naming the server, its exit code and its stderr",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const toolset = yield* McpToolset.make([dying])
        const failure = yield* Effect.flip(toolset.call("broken__anything", {}))
        assert.strictEqual(failure._tag, "ServerUnavailable")
        assert.include(failure.message, "broken")
        assert.include(failure.message, "exited with code 3")
        assert.include(failure.message, "DATABASE_URL is not set")
      })).pipe(Effect.andThen(Effect.sync(() => assert.lengthOf(childrenMentioning(dyingScript), 0)))),
    { timeout: 60_000 }
  )
})

describe("a tool that can only be called as a task", () => {
  it.live(
    "on a 2025-11-25 session it is left out of the map, with a diagnostic saying it needs tasks, while the server's other tools load",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio()])
        // server-everything registers its task tool once the session is initialized: wait for its listing.
        yield* eventually(
          () => Effect.runSync(toolset.diagnostics).some((d) => d.kind === "tool-needs-tasks"),
          "the task tool was judged"
        )
        const tools = yield* toolset.tools
        assert.isTrue(tools.has("everything__echo"))
        assert.isFalse([...tools.keys()].some((name) => name.includes("simulate-research-query")))
        const needs = (yield* toolset.diagnostics).find((d) => d.kind === "tool-needs-tasks")
        assert.include(
          needs?.message ?? "",
          "tool \"simulate-research-query\" of MCP server \"everything\" was left out"
        )
        assert.include(needs?.message ?? "", "2025-11-25")
        const refused = yield* Effect.flip(toolset.call("everything__simulate-research-query", { topic: "x" }))
        assert.strictEqual(refused._tag, "UnknownTool")
      })).pipe(Effect.andThen(Effect.sync(() => assert.lengthOf(childrenMentioning("server-everything"), 0)))),
    { timeout: 60_000 }
  )
})
