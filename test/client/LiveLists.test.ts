// Behaviour 10, live lists: `notifications/tools/list_changed` refreshes the map in place — the
// Effect API's `changes`, and the very `tools` record the Promise API handed out — and the toolset's
// client advertises no roots, sampling or elicitation unless asked to.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { mcpTools, McpCallResult, McpToolset } from "effect-surface/client"
import { pathToFileURL } from "node:url"
import { serveFace } from "./face.ts"
import { eventually, everythingStdio, filesystemStdio, pause, tempDir } from "./servers.ts"

describe("live lists", () => {
  it.live(
    "a server's tools/list_changed refreshes the map in place: tools leave and come back as the server's roster moves",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const toolset = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
          allowedHosts: ["127.0.0.1"]
        })
        assert.isTrue((yield* toolset.tools).has("board__stopwatch_watch_lap"))
        const stopwatch = face.options.surfaces?.["stopwatch"]
        yield* face.served.face.reroster({})
        yield* toolset.changes.pipe(
          Stream.takeUntil((tools) => !tools.has("board__stopwatch_watch_lap")),
          Stream.runDrain,
          Effect.timeout("10 seconds")
        )
        assert.isTrue((yield* toolset.tools).has("board__tasks_add"), "the rest stayed")
        const unknown = yield* Effect.flip(toolset.call("board__stopwatch_watch_lap", {}))
        assert.strictEqual(unknown._tag, "UnknownTool")
        yield* face.served.face.reroster({ stopwatch: stopwatch! })
        yield* toolset.changes.pipe(
          Stream.takeUntil((tools) => tools.has("board__stopwatch_watch_lap")),
          Stream.runDrain,
          Effect.timeout("10 seconds")
        )
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("board__stopwatch_watch_lap", {})), `{"value":1}`)
        const changed = (yield* toolset.diagnostics).filter((d) => d.kind === "tools-changed")
        assert.lengthOf(changed, 2)
        assert.include(changed[0]?.message ?? "", "removed (board__stopwatch_watch_lap, board__stopwatch_wait)")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the Promise API's tools record is the same object before and after, updated in place",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const toolset = yield* Effect.acquireRelease(
          Effect.promise(() =>
            mcpTools([{ name: "board", type: "streamable-http", url: face.url }], { allowedHosts: ["127.0.0.1"] })
          ),
          (t) => Effect.promise(() => t.close())
        )
        const tools = toolset.tools
        assert.isDefined(tools["board__stopwatch_wait"])
        yield* face.served.face.reroster({})
        yield* eventually(() => tools["board__stopwatch_wait"] === undefined, "the withdrawn tool left the record")
        assert.strictEqual(toolset.tools, tools)
        assert.isDefined(tools["board__tasks_add"])
      }),
    { timeout: 60_000 }
  )
})

describe("client capabilities", () => {
  it.live(
    "the toolset advertises no roots, sampling or elicitation: server-everything registers none of the tools that need them",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio()])
        const names = [...(yield* toolset.tools).keys()]
        assert.include(names, "everything__echo")
        for (
          const needs of [
            "get-roots-list",
            "trigger-sampling-request",
            "trigger-elicitation-request",
            "trigger-url-elicitation"
          ]
        ) {
          assert.notInclude(names, `everything__${needs}`)
        }
      }),
    { timeout: 60_000 }
  )

  it.live(
    "asked to, it advertises roots and answers roots/list: the server adds its roots tool (a live list change) and the filesystem server serves the root",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const roots = [{ uri: pathToFileURL(dir).href, name: "work" }]
        const toolset = yield* McpToolset.make([everythingStdio(), filesystemStdio([])], { roots })
        yield* toolset.changes.pipe(
          Stream.takeUntil((tools) => tools.has("everything__get-roots-list")),
          Stream.runDrain,
          Effect.timeout("10 seconds")
        )
        assert.include(
          McpCallResult.textOf(yield* toolset.call("everything__get-roots-list", {})),
          pathToFileURL(dir).href
        )
        // The filesystem server takes its allowed directories from the client's roots, once it has asked.
        let allowed = ""
        for (let i = 0; i < 50 && !allowed.includes(dir); i++) {
          allowed = McpCallResult.textOf(yield* toolset.call("files__list_allowed_directories", {}))
          if (!allowed.includes(dir)) yield* pause(100)
        }
        assert.include(allowed, dir)
      }),
    { timeout: 60_000 }
  )
})
