// Where the faces meet, through real parts: the MCP servers an editor sends in session/new become
// the session's client toolset (reference servers as child processes, one of them over Streamable
// HTTP behind a proxy that records every request it gets), `tools` lists them, and `call` asks the
// person through session/request_permission before anything reaches the server. Whatever is not a
// yes — a no, a dismissed prompt, a malformed answer, a cancel — sends nothing.
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { Approval } from "effect-surface"
import { AcpAgent, AcpChecks, AcpSession, AcpToolset, ScriptedEditor } from "effect-surface/acp"
import { McpPolicy, McpToolset } from "effect-surface/client"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { handler } from "../../examples/acp/agent.ts"
import * as SessionTools from "../../examples/acp/tools.ts"
import { entry, everythingHttp, recordingProxy, tempDir } from "../client/servers.ts"
import { isRequest } from "./harness.ts"

const allow = ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-once" } })
const reject = ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "reject-once" } })

/**
 * The example agent, as `npm -s start -- --acp` serves it, to a scripted editor in process. With
 * `loopback`, its toolset's options name 127.0.0.1 in allowedHosts, where the test's HTTP servers run
 * (an unnamed loopback host is refused).
 */
const example = (script: ScriptedEditor.Script, loopback = false) =>
  ScriptedEditor.make({ script }).pipe(
    Effect.provide(
      Layer.effect(
        AcpAgent.AcpAgent,
        AcpAgent.make(handler, {
          agentCapabilities: { mcpCapabilities: AcpToolset.mcpCapabilities },
          session: loopback ? AcpToolset.layer({ ...SessionTools.options, allowedHosts: ["127.0.0.1"] })
            : SessionTools.layer
        })
      ).pipe(Layer.provide(AcpChecks.layer))
    )
  )

/** server-memory as an editor sends it: ACP's stdio shape, its file given in `env`. */
const memory = (file: string): Acp.McpServer => ({
  name: "memory",
  command: process.execPath,
  args: [entry("server-memory")],
  env: [{ name: "MEMORY_FILE_PATH", value: file }]
})

const said = (updates: ReadonlyArray<Acp.SessionUpdate>) =>
  updates.flatMap((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])
    .join("")

const ada = JSON.stringify({
  entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }]
})

const stored = (file: string) => (Fs.existsSync(file) ? Fs.readFileSync(file, "utf8") : "")

describe("a session's toolset from session/new's mcpServers", () => {
  it.effect("the editor's entries become toolset entries: stdio in the session's folder, http as Streamable HTTP, sse as SSE", () =>
    Effect.gen(function*() {
      const entries = yield* AcpToolset.servers([
        {
          name: "memory",
          command: "mcp-server-memory",
          args: ["--quiet"],
          env: [{ name: "MEMORY_FILE_PATH", value: "/tmp/m.jsonl" }]
        },
        {
          type: "http",
          name: "docs",
          url: "https://mcp.example.com/mcp",
          headers: [{ name: "Authorization", value: "Bearer t" }]
        },
        { type: "sse", name: "legacy", url: "https://mcp.example.com/sse", headers: [] }
      ], "/repo")
      assert.deepStrictEqual(entries, [
        {
          name: "memory",
          type: "stdio",
          command: "mcp-server-memory",
          args: ["--quiet"],
          env: { MEMORY_FILE_PATH: "/tmp/m.jsonl" },
          cwd: "/repo"
        },
        {
          name: "docs",
          type: "streamable-http",
          url: "https://mcp.example.com/mcp",
          headers: { Authorization: "Bearer t" }
        },
        { name: "legacy", type: "sse", url: "https://mcp.example.com/sse", headers: {} }
      ])
    }))

  it.effect("a name given twice in one server's env or headers is refused with a sentence naming it, never overwritten", () =>
    Effect.gen(function*() {
      const env = yield* Effect.flip(AcpToolset.servers([
        { name: "memory", command: "m", args: [], env: [{ name: "A", value: "1" }, { name: "A", value: "2" }] }
      ], "/"))
      assert.strictEqual(env.message, "server \"memory\" (entry 0) cannot be used: it names the variable A twice")
      const headers = yield* Effect.flip(AcpToolset.servers([
        { type: "sse", name: "ok", url: "https://a.example/sse", headers: [] },
        {
          type: "http",
          name: "docs",
          url: "https://a.example/mcp",
          headers: [{ name: "X-Key", value: "1" }, { name: "x-key", value: "2" }]
        }
      ], "/"))
      assert.strictEqual(headers.message, "server \"docs\" (entry 1) cannot be used: it names the header x-key twice")
    }))

  it.live("an entry the toolset refuses fails session/new with the toolset's sentence", () =>
    Effect.gen(function*() {
      const editor = yield* example({})
      const refused = yield* Effect.flip(
        editor.newSession({ mcpServers: [{ type: "http", name: "docs", url: "not a url", headers: [] }] })
      )
      assert.include(String(refused), "server \"docs\" (entry 0) cannot be used: \"url\" is not a URL")
    }).pipe(Effect.scoped))

  it.live("the agent advertises the MCP transports its toolset takes, and only with it", () =>
    Effect.gen(function*() {
      const mcpOf = (editor: ScriptedEditor.Editor) =>
        Effect.map(editor.log, ([first]) =>
          first !== undefined && "result" in first
            ? (first.result as Acp.InitializeResponse).agentCapabilities?.mcpCapabilities
            : undefined)
      assert.deepStrictEqual(yield* mcpOf(yield* example({})), { http: true, sse: true })
      const plain = yield* ScriptedEditor.make().pipe(Effect.provide(AcpAgent.layer(() => Effect.void)))
      assert.deepStrictEqual(yield* mcpOf(plain), { http: false, sse: false })
    }).pipe(Effect.scoped))

  it.live(
    "tools lists the stdio server's tools, and an allowed call reaches it, shown on the tool call the permission named",
    () =>
      Effect.gen(function*() {
        const file = Path.join(yield* tempDir, "memory.jsonl")
        const editor = yield* example({ "session/request_permission": allow })
        const session = yield* editor.newSession({ cwd: Path.dirname(file), mcpServers: [memory(file)] })
        yield* editor.prompt(session, "tools")
        assert.include(said(yield* editor.updates), "- memory__create_entities: ")
        assert.include(said(yield* editor.updates), "- memory__read_graph: ")

        assert.strictEqual(
          (yield* editor.prompt(session, `call memory__create_entities ${ada}`)).stopReason,
          "end_turn"
        )
        assert.include(stored(file), "wrote the first program")
        assert.include(said(yield* editor.updates), "memory__create_entities answered:")
        const [asked] = (yield* editor.requests("session/request_permission")).map((r) =>
          r.params as Acp.RequestPermissionRequest
        )
        assert.strictEqual(asked?.toolCall.title?.startsWith("Call memory__create_entities"), true)
        assert.deepStrictEqual(asked?.toolCall.rawInput, JSON.parse(ada))
        const updates = yield* editor.updates
        const started = updates.flatMap((u) => u.sessionUpdate === "tool_call" ? [u.toolCallId] : [])
        assert.deepStrictEqual(started, [asked?.toolCall.toolCallId])
        const ended = updates.flatMap((u) =>
          u.sessionUpdate === "tool_call_update" && u.status === "completed" ? [u.toolCallId] : []
        )
        assert.deepStrictEqual(ended, started)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a no, a dismissed prompt, an option never offered, a malformed answer and a refused prompt each send nothing to the server",
    () =>
      Effect.gen(function*() {
        const file = Path.join(yield* tempDir, "memory.jsonl")
        const answers: ReadonlyArray<ScriptedEditor.Step<"session/request_permission">> = [
          reject,
          ScriptedEditor.answer({ outcome: { outcome: "cancelled" } }),
          ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-always" } }),
          ScriptedEditor.malformed({ outcome: { outcome: "selected", optionId: 7 } }),
          ScriptedEditor.refuse("the prompt could not be shown")
        ]
        const editor = yield* example({ "session/request_permission": (_, call) => answers[call.index] ?? reject })
        const session = yield* editor.newSession({ cwd: Path.dirname(file), mcpServers: [memory(file)] })
        for (const _ of answers) yield* editor.prompt(session, `call memory__create_entities ${ada}`)
        assert.strictEqual((yield* editor.requests("session/request_permission")).length, answers.length)
        assert.notInclude(stored(file), "Ada")
        const text = said(yield* editor.updates)
        assert.include(text, "Not done: the person declined the call to memory__create_entities")
        assert.include(text, "Not done: the person dismissed the request to call memory__create_entities")
        assert.notInclude(text, "answered:")
        const failed = (yield* editor.updates).filter((u) =>
          u.sessionUpdate === "tool_call_update" && u.status === "failed"
        )
        assert.strictEqual(failed.length, answers.length)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a turn cancelled while the person is being asked answers cancelled and sends nothing to the server",
    () =>
      Effect.gen(function*() {
        const file = Path.join(yield* tempDir, "memory.jsonl")
        const editor = yield* example({ "session/request_permission": ScriptedEditor.hang })
        const session = yield* editor.newSession({ cwd: Path.dirname(file), mcpServers: [memory(file)] })
        const prompt = yield* Effect.forkChild(editor.prompt(session, `call memory__create_entities ${ada}`))
        yield* editor.waitFor(isRequest("session/request_permission"))
        yield* editor.cancel(session)
        assert.strictEqual((yield* Fiber.join(prompt)).stopReason, "cancelled")
        // The session's toolset is still there, and the server still holds nothing.
        yield* editor.prompt(session, "tools")
        assert.include(said(yield* editor.updates), "memory__read_graph")
        assert.notInclude(stored(file), "Ada")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "an http server is reached over Streamable HTTP with its headers, and only once the person allows the call",
    () =>
      Effect.gen(function*() {
        const everything = yield* everythingHttp("streamableHttp")
        const proxy = yield* recordingProxy(new URL(everything.url).origin)
        const server: Acp.McpServer = {
          type: "http",
          name: "everything",
          url: `${proxy.origin}/mcp`,
          headers: [{ name: "X-Workspace", value: "repo" }]
        }
        const editor = yield* example({
          "session/request_permission": (_, call) => (call.index === 0 ? reject : allow)
        }, true)
        const session = yield* editor.newSession({ cwd: "/repo", mcpServers: [server] })
        yield* editor.prompt(session, "call everything__echo {\"message\":\"first\"}")
        assert.deepStrictEqual(proxy.bodies("tools/call"), [])
        yield* editor.prompt(session, "call everything__echo {\"message\":\"second\"}")
        const calls = proxy.bodies("tools/call")
        assert.strictEqual(calls.length, 1)
        assert.include(calls[0]?.body, "second")
        assert.strictEqual(calls[0]?.headers["x-workspace"], "repo")
        assert.include(said(yield* editor.updates), "Echo: second")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live("an sse server is reached over SSE", () =>
    Effect.gen(function*() {
      const everything = yield* everythingHttp("sse")
      const editor = yield* example({ "session/request_permission": allow }, true)
      const session = yield* editor.newSession({
        mcpServers: [{ type: "sse", name: "legacy", url: everything.url, headers: [] }]
      })
      yield* editor.prompt(session, "call legacy__echo {\"message\":\"over sse\"}")
      assert.include(said(yield* editor.updates), "Echo: over sse")
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live(
    "the toolset asks the editor whatever Approval its maker's context holds, and with no turn to ask through, denies",
    () =>
      Effect.gen(function*() {
        const file = Path.join(yield* tempDir, "memory.jsonl")
        const session: AcpSession.Info = {
          sessionId: "s1",
          cwd: Path.dirname(file),
          mcpServers: [memory(file)],
          request: { cwd: Path.dirname(file), mcpServers: [memory(file)] }
        }
        const yes = Approval.Approval.of({ decide: () => Effect.succeed(Approval.allow) })
        const toolset = yield* AcpToolset.make(session, { policy: { decide: () => McpPolicy.ask } }).pipe(
          Effect.provideService(Approval.Approval, yes)
        )
        const denied = yield* Effect.flip(toolset.call("memory__create_entities", JSON.parse(ada)))
        assert.strictEqual(denied._tag, "PolicyDenied")
        assert.include(denied.message, "there is no editor to ask")
        assert.notInclude(stored(file), "Ada")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live("a session's turns share the one toolset its session/new built", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "memory.jsonl")
      const seen: Array<McpToolset.Toolset> = []
      const turn = () => Effect.map(Effect.service(McpToolset.McpToolset), (toolset) => void seen.push(toolset))
      const editor = yield* ScriptedEditor.make().pipe(
        Effect.provide(AcpAgent.layer(turn, { session: AcpToolset.layer() }))
      )
      const session = yield* editor.newSession({ cwd: Path.dirname(file), mcpServers: [memory(file)] })
      yield* editor.prompt(session, "one")
      yield* editor.prompt(session, "two")
      assert.strictEqual(seen.length, 2)
      assert.strictEqual(seen[0], seen[1])
      assert.isTrue((yield* seen[0]!.tools).has("memory__read_graph"))
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
