// Behaviour 5, policy is the only gate: every call is put to `policy.decide({ toolName, server, tool,
// args })`; deny means the server receives nothing; ask goes to the Approval service, and with none
// provided ask means no; annotations and server instructions play no part. Behaviour 6, the filter:
// `tools` takes allow or block, never both.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Approval } from "effect-surface"
import { McpCallResult, type McpConfig, McpPolicy, McpToolset } from "effect-surface/client"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { drifting, plain } from "./drifting.ts"
import { serveFace } from "./face.ts"
import { childrenMentioning, entry, everythingStdio, memoryStdio, tempDir } from "./servers.ts"

const instructions = Fs.readFileSync(
  Path.join(Path.dirname(entry("server-everything")), "docs", "instructions.md"),
  "utf8"
)

describe("policy", () => {
  it.live("a denied call fails with PolicyDenied and the server receives nothing", () =>
    Effect.gen(function*() {
      const face = yield* serveFace
      const dir = yield* tempDir
      const toolset = yield* McpToolset.make([
        { name: "board", type: "streamable-http", url: face.url },
        memoryStdio(Path.join(dir, "m.jsonl"))
      ], {
        allowedHosts: ["127.0.0.1"],
        policy: {
          decide: (r) =>
            r.tool === "watch_count" || r.tool === "create_entities" ? McpPolicy.deny("this agent only reads")
              : McpPolicy.allow
        }
      })
      const denied = yield* Effect.flip(toolset.call("board__watch_count", {}))
      assert.strictEqual(denied._tag, "PolicyDenied")
      assert.include(denied.message, "this agent only reads")
      assert.strictEqual(yield* face.calls, 0)
      const alsoDenied = yield* Effect.flip(
        toolset.call("memory__create_entities", { entities: [{ name: "x", entityType: "t", observations: [] }] })
      )
      assert.strictEqual(alsoDenied._tag, "PolicyDenied")
      const graph = yield* toolset.call("memory__read_graph", {})
      assert.notInclude(McpCallResult.textOf(graph), "\"x\"")
    }), { timeout: 60_000 })

  it.live(
    "ask with no Approval provided means no: the call is denied, saying nobody could be asked, and nothing reaches the server",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const toolset = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
          allowedHosts: ["127.0.0.1"],
          policy: { decide: () => McpPolicy.ask }
        })
        const denied = yield* Effect.flip(toolset.call("board__watch_count", {}))
        assert.strictEqual(denied._tag, "PolicyDenied")
        assert.include(denied.message, "no one is there to ask")
        assert.strictEqual(yield* face.calls, 0)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "ask is put to the Approval service with the call and the tool's description; its answer decides",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const asked: Array<Approval.Request> = []
        let answer = Approval.allow
        const approval = Layer.succeed(
          Approval.Approval,
          Approval.Approval.of({
            decide: (request) => Effect.sync(() => (asked.push(request), answer))
          })
        )
        const toolset = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
          allowedHosts: ["127.0.0.1"],
          policy: { decide: () => McpPolicy.ask }
        })
          .pipe(Effect.provide(approval))
        yield* toolset.call("board__watch_count", {})
        assert.strictEqual(yield* face.calls, 1)
        assert.deepStrictEqual(asked[0], {
          toolName: "board__watch_count",
          server: "board",
          tool: "watch_count",
          args: {},
          description: "Count the calls that reach the server."
        })
        answer = Approval.deny("the person declined")
        const denied = yield* Effect.flip(toolset.call("board__watch_count", {}))
        assert.include(denied.message, "the person declined")
        assert.strictEqual(yield* face.calls, 1)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the policy sees the call alone — no annotation, no server text — so a tool marked read-only is gated like any other",
    () =>
      Effect.gen(function*() {
        const seen: Array<McpPolicy.Request> = []
        const toolset = yield* McpToolset.make([everythingStdio()], {
          policy: { decide: (request) => (seen.push(request), McpPolicy.ask) }
        })
        // echo is annotated readOnlyHint: true, destructiveHint: false by its server.
        const denied = yield* Effect.flip(toolset.call("everything__echo", { message: "hi" }))
        assert.strictEqual(denied._tag, "PolicyDenied")
        assert.deepStrictEqual(seen, [{
          toolName: "everything__echo",
          server: "everything",
          tool: "echo",
          args: { message: "hi" }
        }])
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the server's instructions reach no text the toolset writes: no description, diagnostic or policy request carries them",
    () =>
      Effect.gen(function*() {
        assert.isAbove(instructions.length, 200)
        const seen: Array<string> = []
        const toolset = yield* McpToolset.make([everythingStdio()], {
          policy: { decide: (r) => (seen.push(JSON.stringify(r)), McpPolicy.allow) }
        })
        yield* toolset.call("everything__echo", { message: "hi" })
        const written = [...(yield* toolset.tools).values()].map((tool) => tool.description).concat(
          seen,
          JSON.stringify(yield* toolset.diagnostics)
        )
        const lines = instructions.split("\n").map((line) => line.trim()).filter((line) => line.length > 30)
        assert.isNotEmpty(lines)
        for (const line of lines) for (const text of written) assert.notInclude(text, line)
      }),
    { timeout: 60_000 }
  )

  it.live("with no policy every call is allowed; a policy that fails denies", () =>
    Effect.gen(function*() {
      const face = yield* serveFace
      const open = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
        allowedHosts: ["127.0.0.1"]
      })
      yield* open.call("board__watch_count", {})
      assert.strictEqual(yield* face.calls, 1)
      const broken = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
        allowedHosts: ["127.0.0.1"],
        policy: { decide: () => Effect.die(new Error("rules file unreadable")) }
      })
      const denied = yield* Effect.flip(broken.call("board__watch_count", {}))
      assert.include(denied.message, "the policy failed (rules file unreadable)")
      assert.strictEqual(yield* face.calls, 1)
    }), { timeout: 60_000 })
})

describe("a policy that does not answer a decision", () => {
  it.live(
    "an answer that is not a decision ({ kind: \"deny\" }, undefined, a Promise, as a value or an Effect) denies with PolicyDenied saying what came back, and the server receives nothing",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const server = drifting(dir, [plain("add")])
        const answers: ReadonlyArray<readonly [unknown, string]> = [
          [{ kind: "deny" }, "{\"kind\":\"deny\"}"],
          [undefined, "undefined"],
          [Promise.resolve(McpPolicy.allow), "a Promise"],
          [Effect.succeed({ _tag: "Deny", reason: 7 }), "{\"_tag\":\"Deny\",\"reason\":7}"]
        ]
        for (const [answer, said] of answers) {
          const toolset = yield* McpToolset.make([server.config], {
            policy: { decide: () => answer as McpPolicy.Decision }
          })
          const refused = yield* Effect.flip(toolset.call("drift__add", {}))
          assert.strictEqual(refused._tag, "PolicyDenied")
          assert.include(refused.message, `the policy answered ${said}, which is not a decision`)
        }
        assert.deepStrictEqual(yield* server.calls, [])
      }),
    { timeout: 60_000 }
  )
})

describe("the tools filter", () => {
  it.live(
    "allow keeps only the named tools (by projected name or server__tool); the rest are unknown",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const toolset = yield* McpToolset.make([memoryStdio(Path.join(dir, "m.jsonl")), everythingStdio()], {
          tools: { allow: ["memory__read_graph", "everything__echo", "memory__no_such_tool"] }
        })
        assert.sameMembers([...(yield* toolset.tools).keys()], ["memory__read_graph", "everything__echo"])
        const unknown = yield* Effect.flip(toolset.call("memory__create_entities", { entities: [] }))
        assert.strictEqual(unknown._tag, "UnknownTool")
        const unmatched = (yield* toolset.diagnostics).filter((d) => d.kind === "tool-filter-unmatched")
        assert.deepStrictEqual(unmatched.map((d) => d.kind === "tool-filter-unmatched" ? d.entry : ""), [
          "memory__no_such_tool"
        ])
      }),
    { timeout: 60_000 }
  )

  it.live("block leaves the named tools out and keeps the rest", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const toolset = yield* McpToolset.make([memoryStdio(Path.join(dir, "m.jsonl"))], {
        tools: { block: ["memory__delete_entities"] }
      })
      const names = [...(yield* toolset.tools).keys()]
      assert.notInclude(names, "memory__delete_entities")
      assert.include(names, "memory__read_graph")
    }), { timeout: 60_000 })

  it.live(
    "a filter, policy or other option of the wrong shape is refused at wiring time, and no server is started",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const server = drifting(dir, [plain("add")])
        const script = server.config.args?.[0] ?? ""
        const malformed: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
          [{ tools: {} }, "tools takes { allow: [names] } or { block: [names] }; it names neither"],
          [{ tools: { allow: "drift__add" } }, "tools.allow must be a list of tool names"],
          [{ policy: {} }, "policy must be an object with a decide function"],
          [{ policy: { decide: "allow" } }, "policy must be an object with a decide function"],
          [{ allowedHosts: "mcp.example.com" }, "allowedHosts must be a list of hosts"],
          [{ onDiagnostic: true }, "onDiagnostic must be a function"],
          [{ roots: [{ name: "repo" }] }, "roots must be a list of { uri, name? }"],
          [{ stdio: { root: 1 } }, "stdio takes { root?: a directory }"],
          [{ storage: {} }, "storage must be a connection store"],
          [{ disclosure: { alwaysLoad: "drift" } }, "disclosure.alwaysLoad must be a list of server names"]
        ]
        for (const [options, said] of malformed) {
          const refused = yield* Effect.flip(McpToolset.make([server.config], options as McpConfig.Options))
          assert.strictEqual(refused._tag, "WiringError", said)
          assert.include(refused.message, said)
        }
        assert.lengthOf(childrenMentioning(script), 0, "no server was started")
      }),
    { timeout: 60_000 }
  )

  it.effect("allow and block together are refused at wiring time", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        McpToolset.make([everythingStdio()], { tools: { allow: ["a"], block: ["b"] } as never })
      )
      assert.strictEqual(refused._tag, "WiringError")
      assert.include(refused.message, "allow or block, never both")
    }))
})
