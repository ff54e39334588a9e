// The conformance suite's "everything server", built only from the framework's public API.
// `npm run conformance` starts it on a free port and runs the official suite against it; on its own
// it serves on PORT (default 3001) and prints its URL. With REDIS_URL its sessions are kept in that
// Redis (as several instances behind one balancer run it), and ALLOWED_HOSTS (comma-separated)
// adds the names it is reached by.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Config, Console, Effect, Layer, Option, PubSub, Schedule, Schema, Stream } from "effect"
import { Ask, Caller, Progress, Surface, Tools } from "effect-surface"
import { McpCompletion, McpHttp, McpHttpRedis, McpPrompts } from "effect-surface/mcp"
import type { McpAppResources } from "effect-surface/mcp"

// A 1×1 PNG and a silent WAV: the smallest real files of their kinds.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
const wav = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="

/** A tool with no input whose answer is fixed content. */
const fixed = (description: string, blocks: ReadonlyArray<Tools.ToolContent>) =>
  Tools.make({ description, mutates: false, handler: () => Effect.void, render: () => Tools.content(blocks) })

const say = (text: string) => Tools.content([Tools.text(text)])

/** A string union whose members carry display titles (SEP-1330's titled enums). */
const titled = (options: ReadonlyArray<readonly [string, string]>) =>
  Schema.Union(options.map(([value, title]) => Schema.Literal(value).annotate({ title })))

const tools = {
  test_simple_text: fixed("Answers with a simple text.", [Tools.text("This is a simple text response for testing.")]),
  test_image_content: fixed("Answers with a PNG image.", [Tools.image(png, "image/png")]),
  test_audio_content: fixed("Answers with a WAV sound.", [Tools.audio(wav, "audio/wav")]),
  test_embedded_resource: fixed("Answers with an embedded resource.", [
    Tools.resource({
      uri: "test://embedded-resource",
      mimeType: "text/plain",
      text: "This is an embedded resource content."
    })
  ]),
  test_multiple_content_types: fixed("Answers with text, an image and a resource.", [
    Tools.text("Multiple content types test:"),
    Tools.image(png, "image/png"),
    Tools.resource({
      uri: "test://mixed-content-resource",
      mimeType: "application/json",
      text: `{"test":"data","value":123}`
    })
  ]),
  test_tool_with_logging: Tools.make({
    description: "Logs three lines while it runs.",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        yield* Effect.logInfo("Tool execution started")
        yield* Effect.sleep("50 millis")
        yield* Effect.logInfo("Tool processing data")
        yield* Effect.sleep("50 millis")
        yield* Effect.logInfo("Tool execution completed")
        return "Tool with logging executed successfully"
      }),
    render: say
  }),
  test_tool_with_progress: Tools.make({
    description: "Reports progress three times.",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        for (const progress of [0, 50, 100]) {
          yield* Progress.report({ progress, total: 100, message: `at ${progress}%` })
          yield* Effect.sleep("50 millis")
        }
        return "Progress reported"
      }),
    render: say
  }),
  test_error_handling: Tools.make({
    description: "Always fails, as a tool result.",
    mutates: false,
    handler: () => Effect.fail(new Error("This tool intentionally returns an error for testing"))
  }),
  test_reconnection: Tools.make({
    description: "Closes its response stream mid-call; the client resumes it and receives the answer.",
    mutates: false,
    handler: () =>
      Caller.closeResponseStream.pipe(
        Effect.andThen(Effect.sleep("200 millis")),
        Effect.as("Reconnection test completed")
      ),
    render: say
  }),
  json_schema_2020_12_tool: Tools.make({
    description: "Tool with JSON Schema 2020-12 features",
    input: Tools.jsonSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false
    }),
    mutates: false,
    handler: (input) => Effect.succeed(input)
  }),
  test_sampling: Tools.make({
    description: "Asks the client's model to answer a prompt.",
    input: Schema.Struct({ prompt: Schema.String }),
    mutates: false,
    handler: ({ prompt }) =>
      Effect.map(
        Ask.sample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 }),
        (reply) => `LLM response: ${reply.content.type === "text" ? reply.content.text : ""}`
      ),
    render: say
  }),
  test_elicitation: Tools.make({
    description: "Asks the user for a name and an email.",
    input: Schema.Struct({ message: Schema.String }),
    mutates: false,
    handler: ({ message }) =>
      Effect.map(
        Ask.elicit(
          message,
          Schema.Struct({
            username: Schema.String.annotate({ description: "User's response" }),
            email: Schema.String.annotate({ description: "User's email address" })
          })
        ),
        (answer) => `User response: ${JSON.stringify(answer)}`
      ),
    render: say
  }),
  test_elicitation_sep1034_defaults: Tools.make({
    description: "Asks for a form whose every field has a default.",
    mutates: false,
    handler: () =>
      Effect.map(
        Ask.elicit(
          "Please review your profile",
          Schema.Struct({
            name: Schema.String.annotate({ default: "John Doe" }),
            age: Schema.Int.annotate({ default: 30 }),
            score: Schema.Finite.annotate({ default: 95.5 }),
            status: Schema.Literals(["active", "inactive", "pending"]).annotate({ default: "active" }),
            verified: Schema.Boolean.annotate({ default: true })
          })
        ),
        (answer) => `Elicitation completed: ${JSON.stringify(answer)}`
      ),
    render: say
  }),
  test_elicitation_sep1330_enums: Tools.make({
    description: "Asks for a form with every kind of enum.",
    mutates: false,
    handler: () =>
      Effect.map(
        Ask.elicit(
          "Please choose",
          Schema.Struct({
            untitledSingle: Schema.Literals(["option1", "option2", "option3"]),
            titledSingle: titled([["value1", "First Option"], ["value2", "Second Option"], ["value3", "Third Option"]]),
            legacyEnum: Schema.Literals(["opt1", "opt2", "opt3"]).annotate({
              enumNames: ["Option One", "Option Two", "Option Three"]
            }),
            untitledMulti: Schema.Array(Schema.Literals(["option1", "option2", "option3"])),
            titledMulti: Schema.Array(
              titled([["value1", "First Choice"], ["value2", "Second Choice"], ["value3", "Third Choice"]])
            )
          })
        ),
        (answer) => `Elicitation completed: ${JSON.stringify(answer)}`
      ),
    render: say
  })
}

const prompts = {
  test_simple_prompt: McpPrompts.make({
    description: "A prompt with no arguments.",
    handler: () => Effect.succeed([McpPrompts.user("This is a simple prompt for testing.")])
  }),
  test_prompt_with_arguments: McpPrompts.make({
    description: "A prompt with two arguments.",
    arguments: Schema.Struct({ arg1: Schema.String, arg2: Schema.String }),
    complete: { arg1: McpCompletion.fromValues(["test", "testing", "tested"]) },
    handler: ({ arg1, arg2 }) =>
      Effect.succeed([McpPrompts.user(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)])
  }),
  test_prompt_with_embedded_resource: McpPrompts.make({
    description: "A prompt that embeds a resource.",
    arguments: Schema.Struct({ resourceUri: Schema.String }),
    handler: ({ resourceUri }) =>
      Effect.succeed([
        McpPrompts.user({
          type: "resource",
          resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." }
        }),
        McpPrompts.user("Please process the embedded resource above.")
      ])
  }),
  test_prompt_with_image: McpPrompts.make({
    description: "A prompt that carries an image.",
    handler: () =>
      Effect.succeed([
        McpPrompts.user({ type: "image", data: png, mimeType: "image/png" }),
        McpPrompts.user("Please analyze the image above.")
      ])
  })
}

/** The static, templated and watched resources; `ticks` drives the watched one. */
const resourcesOf = (ticks: Stream.Stream<void>): McpAppResources.Table => ({
  resources: {
    "test://static-text": {
      name: "static-text",
      description: "A static text resource",
      mimeType: "text/plain",
      read: Effect.succeed({ text: "This is the content of the static text resource." })
    },
    "test://static-binary": {
      name: "static-binary",
      description: "A static binary resource (a PNG)",
      mimeType: "image/png",
      read: Effect.succeed({ blob: png })
    },
    "test://watched-resource": {
      name: "watched-resource",
      description: "A resource that changes every few seconds",
      mimeType: "text/plain",
      read: Effect.map(
        Effect.clockWith((clock) => clock.currentTimeMillis),
        (now) => ({ text: `Watched resource at ${now}` })
      ),
      changes: ticks
    }
  },
  templates: {
    "test://template/{id}/data": {
      name: "template",
      description: "Data for an id",
      mimeType: "application/json",
      read: ({ id }) => Effect.succeed({ text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) })
    }
  }
})

// The framework serves surfaces; this server's tools need none, so its core is an empty one.
const Empty = Surface.make({})

/** Serve the everything server; the dynamic tool, prompt and resource appear after start. */
export const serve = (port: number, http: Omit<McpHttp.HttpOptions, "port"> = {}) =>
  Effect.gen(function*() {
    const ticks = yield* PubSub.unbounded<void>()
    yield* PubSub.publish(ticks, undefined).pipe(Effect.repeat(Schedule.spaced("3 seconds")), Effect.forkScoped)
    const resources = resourcesOf(Stream.fromPubSub(ticks))
    const served = yield* McpHttp.serve({
      core: { surface: Empty, expose: {} },
      client: Effect.succeed({ clients: {} }),
      tools,
      prompts,
      resources,
      serverInfo: { name: "effect-surface-conformance", version: "0.1.0" },
      // A client told to poll waits this long before resuming its stream.
      http: { port, retryInterval: "500 millis", ...http }
    })
    yield* served.face.setTools({
      ...tools,
      test_dynamic_tool: fixed("Appears after the server starts.", [Tools.text("dynamic")])
    })
    yield* served.face.setPrompts({
      ...prompts,
      test_dynamic_prompt: McpPrompts.make({
        description: "Appears after the server starts.",
        handler: () => Effect.succeed([McpPrompts.user("dynamic")])
      })
    })
    yield* served.face.setResources({
      ...resources,
      resources: {
        ...resources.resources,
        "test://dynamic-resource": {
          name: "dynamic-resource",
          description: "Appears after the server starts",
          mimeType: "text/plain",
          read: Effect.succeed({ text: "dynamic" })
        }
      }
    })
    return served
  })

if (import.meta.main) {
  const main = Effect.gen(function*() {
    const port = yield* Config.Int("PORT").pipe(Config.withDefault(3001))
    const redis = yield* Config.option(Config.String("REDIS_URL"))
    const hosts = yield* Config.option(Config.String("ALLOWED_HOSTS"))
    const http = Option.match(hosts, {
      onNone: () => ({}),
      onSome: (list) => ({
        allowedHosts: [
          "localhost",
          "127.0.0.1",
          "[::1]",
          ...list.split(",").map((name) => name.trim()).filter((name) => name !== "")
        ]
      })
    })
    const served = yield* Option.match(redis, {
      onNone: () => serve(port, http),
      onSome: (url) =>
        Effect.flatMap(
          Layer.build(McpHttpRedis.layer().pipe(Layer.provide(NodeRedis.layer({ url, disableOfflineQueue: true })))),
          (context) => Effect.provideContext(serve(port, http), context)
        )
    })
    // The runner reads this line to find the server.
    yield* Console.log(`listening ${served.url}`)
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.provide(Layer.empty))
  NodeRuntime.runMain(main)
}
