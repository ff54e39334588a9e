import { assert, describe, it } from "@effect/vitest"
import {
  type CallToolResult,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type Progress
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Logger, Queue, Schema } from "effect"
import { Tools } from "effect-surface"
import * as ToolResult from "../../src/core/ToolResult.ts"
import * as ClientRequests from "../../src/core/Ask.ts"
import * as Caller from "../../src/core/Caller.ts"
import * as McpProgress from "../../src/core/Progress.ts"
import * as Face from "../../src/mcp/face/Face.ts"
import { Board, boardExpose, makeClients } from "../../examples/board/app.ts"
import { textOf } from "./harness.ts"
import { call, drain, type Host, host } from "./hostHarness.ts"

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="

const Person = Schema.Struct({
  name: Schema.String.annotate({ default: "John Doe" }),
  age: Schema.Int.annotate({ default: 30 }),
  score: Schema.Finite.annotate({ default: 95.5 }),
  status: Schema.Literals(["active", "inactive", "pending"]).annotate({ default: "active" }),
  verified: Schema.Boolean.annotate({ default: true })
})
const titled = (pairs: ReadonlyArray<readonly [string, string]>) =>
  Schema.Union(pairs.map(([value, title]) => Schema.Literal(value).annotate({ title })))
const Enums = Schema.Struct({
  untitledSingle: Schema.Literals(["option1", "option2", "option3"]),
  titledSingle: titled([["value1", "First Option"], ["value2", "Second Option"]]),
  legacyEnum: Schema.Literals(["opt1", "opt2"]).annotate({ enumNames: ["Option One", "Option Two"] }),
  untitledMulti: Schema.Array(Schema.Literals(["option1", "option2"])),
  titledMulti: Schema.Array(titled([["value1", "First Choice"], ["value2", "Second Choice"]]))
})

const tools = {
  log_levels: Tools.make({
    description: "Logs one line at each Effect level",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        yield* Effect.logDebug("debug line")
        yield* Effect.logInfo("info line")
        yield* Effect.logWarning("warning line")
        yield* Effect.logError("error line")
        return "logged"
      })
  }),
  progress: Tools.make({
    description: "Reports 0, 50, 30 and 100 of 100",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        const progress = yield* McpProgress.Progress
        for (const step of [0, 50, 30, 100])
          yield* progress.report({ progress: step, total: 100, message: `at ${step}` })
        return progress.token === undefined ? "no token" : "token"
      })
  }),
  ask_person: Tools.make({
    description: "Asks the user who they are",
    input: Schema.Struct({ message: Schema.String }),
    mutates: false,
    handler: ({ message }) => ClientRequests.elicit(message, Person)
  }),
  ask_enums: Tools.make({
    description: "Asks every kind of enum",
    mutates: false,
    handler: () => ClientRequests.elicit("Pick", Enums)
  }),
  ask_date: Tools.make({
    description: "Asks for a date and answers its year, decoded by the schema",
    mutates: false,
    handler: () =>
      Effect.map(
        ClientRequests.elicit("When?", Schema.Struct({ when: Schema.Date })),
        (answer) => answer._tag === "Accept" ? answer.content.when.getUTCFullYear() : answer._tag
      )
  }),
  ask_nested: Tools.make({
    description: "Asks what no form can ask",
    mutates: false,
    handler: () => ClientRequests.elicit("Where?", Schema.Struct({ at: Schema.Struct({ x: Schema.Finite }) }))
  }),
  test_sampling: Tools.make({
    description: "Asks the client's model",
    input: Schema.Struct({ prompt: Schema.String }),
    mutates: false,
    handler: ({ prompt }) =>
      Effect.map(
        ClientRequests.sample({
          messages: [{ role: "user", content: { type: "text", text: prompt } }],
          maxTokens: 100
        }),
        (reply) => `LLM response: ${reply.content.type === "text" ? reply.content.text : reply.content.type}`
      )
  }),
  audio: Tools.make({
    description: "A sound",
    mutates: false,
    handler: () => Effect.void,
    render: () => ToolResult.content([ToolResult.audio(WAV, "audio/wav")])
  }),
  embedded: Tools.make({
    description: "An embedded resource",
    mutates: false,
    handler: () => Effect.void,
    render: () =>
      ToolResult.content([
        ToolResult.resource({
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content."
        })
      ])
  }),
  mixed: Tools.make({
    description: "Text, a picture and a resource",
    mutates: false,
    handler: () => Effect.succeed({ test: "data", value: 123 }),
    render: (detail) =>
      ToolResult.content([
        ToolResult.text("Multiple content types test:"),
        ToolResult.image(PNG, "image/png"),
        ToolResult.resource({
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify(detail)
        })
      ], detail)
  })
}

const makeFace = (expose: typeof boardExpose | {} = {}) =>
  Effect.flatMap(
    makeClients,
    ({ clients }) => Face.make({ core: { surface: Board, expose }, client: Effect.succeed(clients), tools })
  )

const levelsOf = (h: Host) => Effect.map(drain(h.messages), (messages) => messages.map((m) => m.level))

// Type-level: every new block and a mixed result are what the SDK's tools/call hands back.
const asSdk: CallToolResult = ToolResult.content([
  ToolResult.audio(WAV, "audio/wav"),
  ToolResult.resource({ uri: "a://b", blob: "AA==" })
])
const asSdkBlock: CallToolResult["content"][number] = ToolResult.resource({ uri: "a://b", text: "t" })

describe("dynamic tools", () => {
  it.live("a root tool added at run time is listed, tools/list_changed is sent, and resources are not announced", () =>
    Effect.gen(function*() {
      const face = yield* makeFace()
      const h = yield* host(face)
      yield* face.setTools({
        ...tools,
        test_dynamic_tool: Tools.make({
          description: "Appears after start",
          mutates: false,
          handler: () => Effect.succeed("dynamic")
        })
      })
      assert.strictEqual(yield* Queue.take(h.listChanged), "tools")
      assert.include((yield* Effect.promise(() => h.client.listTools())).tools.map((t) => t.name), "test_dynamic_tool")
      assert.strictEqual(textOf(yield* call(h, "test_dynamic_tool")), `{"value":"dynamic"}`)
      yield* Effect.sleep("30 millis")
      assert.deepStrictEqual(yield* drain(h.listChanged), [])
    }))

  it.live("a dynamic tool whose name collides is refused naming both claimants, and the old tools keep serving", () =>
    Effect.gen(function*() {
      const face = yield* makeFace(boardExpose)
      const h = yield* host(face)
      const before = (yield* Effect.promise(() => h.client.listTools())).tools.map((t) => t.name)
      const refused = yield* Effect.flip(
        face.setTools({ tasks_add: Tools.make({ description: "Clashes", mutates: false, handler: () => Effect.void }) })
      )
      assert.strictEqual(refused._tag, "DuplicateToolName")
      assert.include(refused.message, `the core's procedure "tasks.add"`)
      assert.include(refused.message, `the root tool "tasks_add"`)
      assert.deepStrictEqual((yield* Effect.promise(() => h.client.listTools())).tools.map((t) => t.name), before)
      assert.deepStrictEqual(yield* drain(h.listChanged), [])
    }))
})

describe("logging", () => {
  it.live("lines at or above the session's level reach its client during the call, related to that call", () =>
    Effect.gen(function*() {
      const h = yield* host(yield* makeFace())
      assert.deepStrictEqual(h.client.getServerCapabilities()?.logging, {})
      yield* Effect.promise(() => h.client.setLoggingLevel("warning"))
      yield* call(h, "log_levels")
      const messages = yield* drain(h.messages)
      assert.deepStrictEqual(messages, [
        { level: "warning", logger: "effect-surface", data: "warning line" },
        { level: "error", logger: "effect-surface", data: "error line" }
      ])
      const response = h.sent.findIndex((s) =>
        "result" in s.message && JSON.stringify(s.message.result).includes("logged")
      )
      const responseId = h.sent[response]?.message
      const logs = h.sent.flatMap((s, i) =>
        "method" in s.message && s.message.method === "notifications/message" ? [{ ...s, i }] : []
      )
      assert.strictEqual(logs.length, 2)
      for (const log of logs) {
        assert.isBelow(log.i, response) // sent before the result, not after it
        assert.strictEqual(
          log.relatedRequestId,
          responseId !== undefined && "id" in responseId ? responseId.id : "none"
        )
      }
    }))

  it.live("a host at debug hears Effect.logDebug while the server's own loggers keep their floor", () =>
    Effect.gen(function*() {
      const console: Array<string> = []
      const capture = Logger.make(({ logLevel, message }) => {
        console.push(`${logLevel} ${String(message)}`)
      })
      const face = yield* makeFace()
      const h = yield* host(face).pipe(Effect.provideService(Logger.CurrentLoggers, new Set([capture])))
      yield* Effect.promise(() => h.client.setLoggingLevel("debug"))
      yield* call(h, "log_levels")
      assert.deepStrictEqual(yield* levelsOf(h), ["debug", "info", "warning", "error"])
      assert.deepStrictEqual(console, ["Info info line", "Warn warning line", "Error error line"])
    }))

  it.live("two sessions on one face keep separate levels, and a session that set none hears info and above", () =>
    Effect.gen(function*() {
      const face = yield* makeFace()
      const quiet = yield* host(face)
      const loud = yield* host(face)
      const unset = yield* host(face)
      yield* Effect.promise(() => quiet.client.setLoggingLevel("error"))
      yield* Effect.promise(() => loud.client.setLoggingLevel("debug"))
      for (const h of [quiet, loud, unset]) yield* call(h, "log_levels")
      assert.deepStrictEqual(yield* levelsOf(quiet), ["error"])
      assert.deepStrictEqual(yield* levelsOf(loud), ["debug", "info", "warning", "error"])
      assert.deepStrictEqual(yield* levelsOf(unset), ["info", "warning", "error"])
    }))
})

describe("progress", () => {
  it.live("a handler's reports arrive on the request's token, increasing only, and go nowhere without a token", () =>
    Effect.gen(function*() {
      const h = yield* host(yield* makeFace())
      const received: Array<Progress> = []
      const result = yield* Effect.promise(() =>
        h.client.callTool({ name: "progress", arguments: {} }, undefined, {
          onprogress: (p) => {
            received.push(p)
          }
        }) as Promise<CallToolResult>
      )
      assert.strictEqual(textOf(result), `{"value":"token"}`)
      assert.deepStrictEqual(received.map((p) => [p.progress, p.total, p.message]), [[0, 100, "at 0"], [
        50,
        100,
        "at 50"
      ], [100, 100, "at 100"]])
      for (const s of h.sent) {
        if ("method" in s.message && s.message.method === "notifications/progress") assert.isDefined(s.relatedRequestId)
      }
      const before = h.sent.length
      assert.strictEqual(textOf(yield* call(h, "progress")), `{"value":"no token"}`)
      assert.isFalse(
        h.sent.slice(before).some((s) => "method" in s.message && s.message.method === "notifications/progress")
      )
    }))
})

/** A host that answers each elicitation with the next queued answer and records the requests. */
const elicitingHost = Effect.gen(function*() {
  const requests: Array<ElicitRequest["params"]> = []
  const answers: Array<ElicitResult> = []
  const h = yield* host(
    yield* makeFace(),
    { elicitation: {} },
    (client) =>
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        requests.push(request.params)
        return answers.shift() ?? { action: "cancel" }
      })
  )
  return { h, requests, answers }
})

describe("elicitation", () => {
  it.live("accept, decline and cancel round trip, the accepted answer decoded by the schema", () =>
    Effect.gen(function*() {
      const { answers, h, requests } = yield* elicitingHost
      const content = { name: "Jane Smith", age: 25, score: 88, status: "inactive", verified: false }
      answers.push({ action: "accept", content }, { action: "decline" }, { action: "cancel" })
      assert.deepStrictEqual((yield* call(h, "ask_person", { message: "Who?" })).structuredContent, {
        _tag: "Accept",
        content
      })
      assert.deepStrictEqual((yield* call(h, "ask_person", { message: "Who?" })).structuredContent, { _tag: "Decline" })
      assert.deepStrictEqual((yield* call(h, "ask_person", { message: "Who?" })).structuredContent, { _tag: "Cancel" })
      assert.strictEqual(requests[0]?.message, "Who?")
      answers.push({ action: "accept", content: { when: "2031-05-01T00:00:00.000Z" } })
      assert.strictEqual(textOf(yield* call(h, "ask_date")), `{"value":2031}`)
      answers.push({ action: "accept", content: { when: "not a date" } })
      const refused = yield* call(h, "ask_date")
      assert.isTrue(refused.isError)
      assert.include(textOf(refused), "elicitation/create")
      assert.include(textOf(refused), "when")
    }))

  it.live("the form is derived from the schema: SEP-1034 defaults and SEP-1330 enum shapes", () =>
    Effect.gen(function*() {
      const { h, requests } = yield* elicitingHost
      yield* call(h, "ask_person", { message: "Who?" })
      yield* call(h, "ask_enums")
      const person = requests[0] && "requestedSchema" in requests[0] ? requests[0].requestedSchema : undefined
      assert.deepStrictEqual(person, {
        type: "object",
        properties: {
          name: { type: "string", default: "John Doe" },
          age: { type: "integer", default: 30 },
          score: { type: "number", default: 95.5 },
          status: { type: "string", default: "active", enum: ["active", "inactive", "pending"] },
          verified: { type: "boolean", default: true }
        },
        required: ["name", "age", "score", "status", "verified"]
      })
      const enums = requests[1] && "requestedSchema" in requests[1] ? requests[1].requestedSchema.properties : undefined
      assert.deepStrictEqual(enums, {
        untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
        titledSingle: {
          type: "string",
          oneOf: [{ const: "value1", title: "First Option" }, { const: "value2", title: "Second Option" }]
        },
        legacyEnum: { type: "string", enum: ["opt1", "opt2"], enumNames: ["Option One", "Option Two"] },
        untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2"] } },
        titledMulti: {
          type: "array",
          items: { anyOf: [{ const: "value1", title: "First Choice" }, { const: "value2", title: "Second Choice" }] }
        }
      })
    }))

  it.live("an accepted answer the requested form does not allow is refused by the SDK's own check, in every session", () =>
    Effect.gen(function*() {
      for (let session = 0; session < 2; session++) {
        const { answers, h } = yield* elicitingHost
        answers.push({
          action: "accept",
          content: { name: 5, age: 25, score: 88, status: "inactive", verified: false }
        })
        const refused = yield* call(h, "ask_person", { message: "Who?" })
        assert.isTrue(refused.isError)
        assert.include(textOf(refused), "does not match requested schema")
        assert.include(textOf(refused), "name")
      }
    }))

  it.live("a client without the capability is sent nothing and the call fails saying so; a schema no form can ask is refused by field", () =>
    Effect.gen(function*() {
      const h = yield* host(yield* makeFace())
      const result = yield* call(h, "ask_person", { message: "Who?" })
      assert.isTrue(result.isError)
      assert.include(textOf(result), `did not declare the "elicitation" capability`)
      assert.isFalse(h.sent.some((s) => "method" in s.message && s.message.method === "elicitation/create"))
      const { h: capable } = yield* elicitingHost
      const nested = yield* call(capable, "ask_nested")
      assert.isTrue(nested.isError)
      assert.include(textOf(nested), `field "at" cannot be asked in a form`)
    }))
})

describe("sampling", () => {
  it.live("a tool asks the client's model on the request's stream and answers with its reply", () =>
    Effect.gen(function*() {
      const requests: Array<CreateMessageRequest["params"]> = []
      const h = yield* host(
        yield* makeFace(),
        { sampling: {} },
        (client) =>
          client.setRequestHandler(CreateMessageRequestSchema, (request) => {
            requests.push(request.params)
            return {
              role: "assistant",
              content: { type: "text", text: "This is a test response" },
              model: "test-model",
              stopReason: "endTurn"
            }
          })
      )
      assert.strictEqual(
        textOf(yield* call(h, "test_sampling", { prompt: "Test prompt" })),
        `{"value":"LLM response: This is a test response"}`
      )
      assert.deepStrictEqual(requests[0]?.messages, [{ role: "user", content: { type: "text", text: "Test prompt" } }])
      assert.strictEqual(requests[0]?.maxTokens, 100)
      const asked = h.sent.find((s) => "method" in s.message && s.message.method === "sampling/createMessage")
      assert.isDefined(asked?.relatedRequestId)
      const without = yield* host(yield* makeFace())
      const refused = yield* call(without, "test_sampling", { prompt: "x" })
      assert.isTrue(refused.isError)
      assert.include(textOf(refused), `did not declare the "sampling" capability`)
    }))
})

describe("outside a request", () => {
  it.effect("a handler run detached reports progress to nowhere and asking the client fails with ClientLacksCapability", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Caller.detached(tools.progress.handler(undefined, undefined)), "no token")
      const refused = yield* Effect.flip(Caller.detached(tools.test_sampling.handler({ prompt: "x" }, undefined)))
      assert.strictEqual(refused._tag, "ClientLacksCapability")
    }))
})

describe("content kinds", () => {
  it.live("audio, embedded resource and mixed content arrive as the blocks the tool framed, a detail's JSON last", () =>
    Effect.gen(function*() {
      const h = yield* host(yield* makeFace())
      assert.deepStrictEqual((yield* call(h, "audio")).content, [{ type: "audio", data: WAV, mimeType: "audio/wav" }])
      assert.deepStrictEqual((yield* call(h, "embedded")).content, [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content."
          }
        }
      ])
      const mixed = yield* call(h, "mixed")
      assert.deepStrictEqual(mixed.content.map((block) => block.type), ["text", "image", "resource", "text"])
      assert.deepStrictEqual(mixed.structuredContent, { test: "data", value: 123 })
      assert.deepStrictEqual(mixed.content[3], { type: "text", text: JSON.stringify({ test: "data", value: 123 }) })
      assert.strictEqual(asSdk.content.length, 2)
      assert.strictEqual(asSdkBlock.type, "resource")
    }))
})
