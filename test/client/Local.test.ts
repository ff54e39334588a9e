// Local surfaces in the same map: a bundle of this process's own surfaces sits beside a real stdio
// server in one toolset, its procedures and bespoke tools named `${key}__${tool}` and called through
// the core's engine, under the one policy, filter, deadline and result adapter, with a reroster
// refreshing the map in place as `tools/list_changed` does for a remote server.
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Ref, Stream } from "effect"
import { Tool } from "effect/ai"
import { TestClock } from "effect/testing"
import { Approval, Caller, Engine, Progress, Roster, Tools } from "effect-surface"
import { McpCallResult, McpPolicy, McpToolset, type McpConfig } from "effect-surface/client"
import { Board, boardExpose, makeClients, rootTools, stopwatchSibling } from "../../examples/board/app.ts"
import { everythingStdio } from "./servers.ts"

/** The example board's whole core, built here so a test can move its roster. */
const boardCore = Effect.gen(function*() {
  const { typed } = yield* makeClients
  return yield* Layer.build(Engine.layerBundle({
    core: { surface: Board, expose: boardExpose },
    surfaces: { stopwatch: stopwatchSibling },
    tools: rootTools,
    client: Effect.succeed(typed)
  }))
})

/** The board with two root tools of the test's own: one reports progress, one waits until interrupted. */
const ownCore = Effect.gen(function*() {
  const { typed } = yield* makeClients
  const interrupted = yield* Ref.make(0)
  const ping = Tools.make({
    description: "Report progress twice, then say whether anyone heard.",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        yield* Progress.report({ progress: 1, total: 2 })
        yield* Progress.report({ progress: 2, total: 2 })
        return (yield* Progress.Progress).token === undefined ? "nobody listening" : "reported"
      })
  })
  const hang = Tools.make({
    description: "Wait until interrupted.",
    mutates: false,
    handler: () => Effect.onInterrupt(Effect.never, () => Ref.update(interrupted, (n) => n + 1))
  })
  const core = yield* Layer.build(Engine.layerBundle({
    core: { surface: Board, expose: boardExpose },
    surfaces: { stopwatch: stopwatchSibling },
    tools: { ping, hang },
    client: Effect.succeed(typed)
  }))
  return { core, interrupted }
})

const board = (core: McpConfig.Local["core"]): McpConfig.Local => ({ name: "board", type: "local", core })

/** The map once it satisfies `holds`, as `changes` delivers it. */
const mapWhere = (toolset: McpToolset.Toolset, holds: (names: ReadonlySet<string>) => boolean) =>
  toolset.changes.pipe(
    Stream.map((tools) => new Set(tools.keys())),
    Stream.filter(holds),
    Stream.runHead,
    Effect.map(Option.getOrThrow),
    Effect.timeoutOrElse({
      duration: "10 seconds",
      orElse: () => Effect.die(new Error("the map never changed as expected"))
    })
  )

const openTasks = (toolset: McpToolset.Toolset) =>
  Effect.map(toolset.call("board__tasks_open", {}), (result) => result.structuredContent)

describe("local surfaces in the toolset", () => {
  it.live(
    "a local bundle's procedures and bespoke tools sit beside a stdio server's tools as key__tool, each called on its own side",
    () =>
      Effect.gen(function*() {
        const core = yield* boardCore
        const roster = Context.get(core, Roster.Roster)
        const toolset = yield* McpToolset.make([board(core), everythingStdio()])
        const tools = yield* toolset.tools
        const advertised = (yield* roster.current).advertisedTools
        for (const listed of advertised) {
          const tool = tools.get(`board__${String(listed["name"])}`)
          assert.isDefined(tool, String(listed["name"]))
          assert.strictEqual(tool!.server, "board")
          assert.strictEqual(tool!.tool, listed["name"])
          assert.strictEqual(tool!.description, listed["description"])
          assert.deepStrictEqual<unknown>(tool!.inputSchema, listed["inputSchema"])
        }
        // procedures of the core and of a sibling, root and sibling bespoke tools, and the server's own
        for (
          const name of [
            "board__tasks_add",
            "board__stopwatch_watch_lap",
            "board__board_progress",
            "board__stopwatch_wait",
            "everything__echo"
          ]
        ) {
          assert.isTrue(tools.has(name), name)
        }

        const added = yield* toolset.call("board__tasks_add", { title: "write the docs" })
        assert.deepStrictEqual(added.structuredContent, { id: "t1" })
        assert.deepStrictEqual(yield* openTasks(toolset), { value: ["t1"] })
        const echoed = yield* toolset.call("everything__echo", { message: "beside the board" })
        assert.strictEqual(McpCallResult.textOf(echoed), "Echo: beside the board")

        // A refusal from a local tool is an isError result, read by the same adapter as a server's.
        const refused = yield* Effect.flip(toolset.call("board__tasks_require", { id: "t1" }))
        assert.strictEqual(refused._tag, "McpToolError")
        assert.isTrue(refused.message.startsWith("MCP tool error: "))
        assert.include(refused.message, "t1 is not done yet")
        // Arguments are checked against the advertised schema before anything runs.
        const invalid = yield* Effect.flip(toolset.call("board__tasks_add", { title: 7 }))
        assert.strictEqual(invalid._tag, "InvalidArguments")
        assert.deepStrictEqual(yield* openTasks(toolset), { value: ["t1"] })
      }),
    { timeout: 60_000 }
  )

  it.live(
    "one policy decides for both sides: it sees a local call by server and tool, a deny runs nothing, an ask goes to the Approval",
    () =>
      Effect.gen(function*() {
        const seen: Array<McpPolicy.Request> = []
        const toolset = yield* McpToolset.make([board(yield* boardCore), everythingStdio()], {
          policy: {
            decide: (request) => {
              seen.push(request)
              if (request.tool === "echo" || request.tool === "tasks_add") return McpPolicy.deny("not in this turn")
              return request.tool === "stopwatch_watch_lap" ? McpPolicy.ask : McpPolicy.allow
            }
          }
        }).pipe(Effect.provide(Approval.layer(Approval.deny("the person said no"))))

        const local = yield* Effect.flip(toolset.call("board__tasks_add", { title: "sneaked in" }))
        assert.strictEqual(local._tag, "PolicyDenied")
        assert.include(local.message, "not in this turn")
        const remote = yield* Effect.flip(toolset.call("everything__echo", { message: "hi" }))
        assert.strictEqual(remote._tag, "PolicyDenied")
        const asked = yield* Effect.flip(toolset.call("board__stopwatch_watch_lap", {}))
        assert.strictEqual(asked._tag, "PolicyDenied")
        assert.include(asked.message, "the person said no")
        // Nothing denied ran: no task was added, no lap counted.
        assert.deepStrictEqual(yield* openTasks(toolset), { value: [] })
        const laps = yield* Effect.map(toolset.call("board__stopwatch_wait", { seconds: 0 }), McpCallResult.textOf)
        assert.include(laps, "at lap 0")
        assert.deepStrictEqual(
          seen.slice(0, 3).map(({ toolName, server, tool, args }) => ({ toolName, server, tool, args })),
          [
            { toolName: "board__tasks_add", server: "board", tool: "tasks_add", args: { title: "sneaked in" } },
            { toolName: "everything__echo", server: "everything", tool: "echo", args: { message: "hi" } },
            { toolName: "board__stopwatch_watch_lap", server: "board", tool: "stopwatch_watch_lap", args: {} }
          ]
        )
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a reroster refreshes the map in place: a sibling that leaves takes its tools out, one that comes back brings them, each move a tools-changed diagnostic",
    () =>
      Effect.gen(function*() {
        const core = yield* boardCore
        const engine = Context.get(core, Engine.Engine)
        const toolset = yield* McpToolset.make([board(core), everythingStdio()], {
          tools: { block: ["board__board_progress"] }
        })
        assert.isTrue((yield* toolset.tools).has("board__stopwatch_watch_lap"))

        yield* engine.reroster({})
        const without = yield* mapWhere(toolset, (names) => !names.has("board__stopwatch_watch_lap"))
        assert.isFalse(without.has("board__stopwatch_wait"))
        assert.isTrue(without.has("board__tasks_add"))
        assert.isTrue(without.has("everything__echo"))
        assert.isFalse(without.has("board__board_progress"), "the filter holds across the move")
        const gone = yield* Effect.flip(toolset.call("board__stopwatch_watch_lap", {}))
        assert.strictEqual(gone._tag, "UnknownTool")

        yield* engine.reroster({ stopwatch: stopwatchSibling })
        yield* mapWhere(toolset, (names) => names.has("board__stopwatch_watch_lap"))
        assert.deepStrictEqual((yield* toolset.call("board__stopwatch_watch_lap", {})).structuredContent, { value: 1 })

        const changes = (yield* toolset.diagnostics).filter((d) => d.kind === "tools-changed")
        assert.deepStrictEqual(
          changes.map((d) => d.kind === "tools-changed" ? [d.server, [...d.added].sort(), [...d.removed].sort()] : []),
          [
            ["board", [], ["board__stopwatch_wait", "board__stopwatch_watch_lap"]],
            ["board", ["board__stopwatch_wait", "board__stopwatch_watch_lap"], []]
          ]
        )
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the effect/ai Toolkit calls a local tool over the same path, advertising the roster's schema unchanged",
    () =>
      Effect.gen(function*() {
        const core = yield* boardCore
        const toolset = yield* McpToolset.make([board(core), everythingStdio()], {
          policy: {
            decide: (r) => r.tool === "tasks_complete" ? McpPolicy.deny("models do not close tasks") : McpPolicy.allow
          }
        })
        const kit = yield* toolset.toolkit
        const advertised = (yield* Context.get(core, Roster.Roster).current).advertisedTools.find((t) =>
          t["name"] === "tasks_add"
        )
        assert.deepStrictEqual<unknown>(Tool.getJsonSchema(kit.tools["board__tasks_add"]!), advertised?.["inputSchema"])
        assert.isDefined(kit.tools["everything__echo"])

        const handled = yield* Stream.runCollect(
          Stream.orDie(yield* kit.handle("board__tasks_add", { title: "from a model" }))
        )
        const last = handled[handled.length - 1]
        assert.isFalse(last?.isFailure)
        assert.deepStrictEqual((last?.result as McpCallResult.Result | undefined)?.structuredContent, { id: "t1" })
        const denied = yield* Stream.runCollect(
          Stream.orDie(yield* kit.handle("board__tasks_complete", { value: "t1" }))
        )
        assert.strictEqual(
          (denied[denied.length - 1]?.result as { readonly _tag?: string } | undefined)?._tag,
          "PolicyDenied"
        )
        assert.deepStrictEqual(yield* openTasks(toolset), { value: ["t1"] })
      }),
    { timeout: 60_000 }
  )

  it.effect("a local call has the request's deadline, on the test's clock: at it the handler is interrupted and the call settles", () =>
    Effect.gen(function*() {
      const { core, interrupted } = yield* ownCore
      const toolset = yield* McpToolset.make([board(core)], { timeoutMs: 5_000 })
      const waiting = yield* toolset.call("board__hang", {}).pipe(Effect.flip, Effect.forkChild)
      yield* TestClock.adjust("4 seconds")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const timedOut = yield* Fiber.join(waiting)
      assert.strictEqual(timedOut._tag, "ToolTimeout")
      assert.include(timedOut.message, "board__hang")
      assert.strictEqual(yield* Ref.get(interrupted), 1)
      // A caller's interruption reaches the handler the same way.
      const abandoned = yield* toolset.call("board__hang", {}).pipe(Effect.forkChild)
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(abandoned)
      assert.strictEqual(yield* Ref.get(interrupted), 2)
      // A call within its deadline is answered.
      const quick = yield* toolset.call("board__stopwatch_wait", { seconds: 1 }).pipe(Effect.forkChild)
      yield* TestClock.adjust("1 second")
      assert.include(McpCallResult.textOf(yield* Fiber.join(quick)), "waited 1s")
    }))

  it.effect("a handler asks its caller through the toolset's caller: Caller.none unless one is given", () =>
    Effect.gen(function*() {
      const reports: Array<number> = []
      const progress = yield* Progress.make("t", (n) => Effect.sync(() => void reports.push(n.progress)))
      const { core } = yield* ownCore
      const plain = yield* McpToolset.make([board(core)])
      assert.deepStrictEqual((yield* plain.call("board__ping", {})).structuredContent, { value: "nobody listening" })
      const given = yield* McpToolset.make([board(core)], {
        caller: Context.add(Caller.none, Progress.Progress, progress)
      })
      assert.deepStrictEqual((yield* given.call("board__ping", {})).structuredContent, { value: "reported" })
      assert.deepStrictEqual(reports, [1, 2])
    }))

  it.effect("a local entry whose core cannot be built is a diagnostic, and the others load", () =>
    Effect.gen(function*() {
      const broken: McpConfig.Local = {
        name: "broken",
        type: "local",
        core: Layer.effectContext(Effect.fail("no database"))
      }
      const toolset = yield* McpToolset.make([broken, board(yield* boardCore)])
      assert.isTrue((yield* toolset.tools).has("board__tasks_add"))
      const said = (yield* toolset.diagnostics).find((d) => d.kind === "server-unavailable")
      assert.include(said?.message, `"broken"`)
      assert.include(said?.message, "no database")
    }))
})
