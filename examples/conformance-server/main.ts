// The conformance suite's "everything server", built only from the framework's public API.
// `npm run conformance` starts it on a free port and runs the official suite against it; on its own
// it serves on PORT (default 3001) and prints its URL. With REDIS_URL its sessions are kept in that
// Redis (as several instances behind one balancer run it), and ALLOWED_HOSTS (comma-separated)
// adds the names it is reached by.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Config, Console, Deferred, Effect, Layer, Option, PubSub, Schedule, Schema, Stream } from "effect"
import { Ask, Caller, Progress, Surface, Tools } from "effect-surface"
import type { Bundle } from "effect-surface"
import { McpCompletion, McpHttp, McpHttpRedis, McpPrompts } from "effect-surface/mcp"
import type { McpAppResources, McpFace } from "effect-surface/mcp"
import { taskTools } from "./tasks.ts"

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
    // Advertised as written: $defs with an $anchor, composition and conditional keywords (SEP-2106).
    input: Tools.jsonSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } }
        }
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" }
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's conditional keyword, never awaited
      then: { required: ["phone"] },
      else: { required: ["email"] },
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

// MCP 2026-07-28's input-required round trips, asked through the core's `Ask` as any handler asks:
// the key names each question in `inputRequests`, as the suite expects it.
const name = Schema.Struct({ name: Schema.String })
const accepted = <A>(answer: { readonly _tag: string; readonly content?: A }) =>
  answer._tag === "Accept" ? answer.content : undefined

const askingTools = {
  test_input_required_result_elicitation: Tools.make({
    description: "Asks for the user's name (an input-required round trip).",
    mutates: false,
    handler: () =>
      Effect.map(
        Ask.elicit("What is your name?", name, { key: "user_name" }),
        (answer) => `Hello, ${accepted(answer)?.name ?? "stranger"}!`
      ),
    render: say
  }),
  test_input_required_result_sampling: Tools.make({
    description: "Asks the client's model a question (an input-required round trip).",
    mutates: false,
    handler: () =>
      Effect.map(
        Ask.sample({
          messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
          maxTokens: 100
        }, { key: "sample_request" }),
        (reply) => `Sampling result: ${reply.content.type === "text" ? reply.content.text : "no text"}`
      ),
    render: say
  }),
  test_input_required_result_list_roots: Tools.make({
    description: "Asks for the client's roots (an input-required round trip).",
    mutates: false,
    handler: () => Effect.map(Ask.roots({ key: "roots_request" }), (roots) => `Found ${roots.length} root(s)`),
    render: say
  }),
  test_input_required_result_request_state: Tools.make({
    description: "Asks for a confirmation, continued by the request state it sends.",
    mutates: false,
    handler: () =>
      Effect.map(
        Ask.elicit("Please confirm", Schema.Struct({ ok: Schema.Boolean }), { key: "confirm" }),
        (answer) => accepted(answer)?.ok === true ? "state-ok: requestState validated" : "not confirmed"
      ),
    render: say
  }),
  test_input_required_result_multiple_inputs: Tools.make({
    description: "Asks three questions at once: a form, a model and the roots.",
    mutates: false,
    handler: () =>
      Effect.map(
        Effect.all([
          Ask.elicit("What is your name?", name, { key: "user_name" }),
          Ask.sample({
            messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
            maxTokens: 50
          }, { key: "greeting" }),
          Ask.roots({ key: "client_roots" })
        ], { concurrency: "unbounded" }),
        ([who, greeting, roots]) =>
          `Name: ${accepted(who)?.name ?? "?"}; Greeting: ${
            greeting.content.type === "text" ? greeting.content.text : "?"
          }; Roots: ${roots.length}`
      ),
    render: say
  }),
  test_input_required_result_multi_round: Tools.make({
    description: "Asks two questions, one round after the other.",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        const who = accepted(yield* Ask.elicit("Step 1: What is your name?", name, { key: "step1" }))
        const colour = accepted(
          yield* Ask.elicit("Step 2: What is your favorite color?", Schema.Struct({ color: Schema.String }), {
            key: "step2"
          })
        )
        return `Multi-round complete for ${who?.name ?? "?"} who likes ${colour?.color ?? "?"}`
      }),
    render: say
  }),
  test_input_required_result_tampered_state: Tools.make({
    description: "Asks for a confirmation; a retry whose request state was altered is refused.",
    mutates: false,
    handler: () =>
      Effect.map(
        Ask.elicit("Please confirm", Schema.Struct({ ok: Schema.Boolean }), { key: "confirm" }),
        () => "integrity-ok: state verified"
      ),
    render: say
  }),
  test_input_required_result_capabilities: Tools.make({
    description: "Asks only what the client declared it can answer.",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        const { capabilities } = yield* Ask.Ask
        const asked = yield* Effect.all([
          capabilities.elicitation
            ? Effect.as(
              Ask.elicit("Elicitation input", Schema.Struct({ value: Schema.String }), { key: "elicit_input" }),
              "elicit_input"
            )
            : Effect.succeed(undefined),
          capabilities.sampling
            ? Effect.as(
              Ask.sample({
                messages: [{ role: "user", content: { type: "text", text: "Sample request" } }],
                maxTokens: 50
              }, {
                key: "sample_input"
              }),
              "sample_input"
            )
            : Effect.succeed(undefined)
        ], { concurrency: "unbounded" })
        const received = asked.filter((key) => key !== undefined)
        return received.length === 0 ? "No supported capabilities declared"
          : `capabilities-ok: received ${received.join(",")}`
      }),
    render: say
  }),
  test_missing_capability: Tools.make({
    description: "Needs the client's model: a client that declared no sampling is told it is missing.",
    mutates: false,
    handler: () =>
      Effect.as(
        Ask.sample({ messages: [{ role: "user", content: { type: "text", text: "Say anything" } }], maxTokens: 10 }),
        "Success"
      ),
    render: say
  }),
  test_streaming_elicitation: Tools.make({
    description: "Answers at once: nothing but notices and its answer travel on its stream.",
    mutates: false,
    handler: () => Effect.succeed("Streaming complete"),
    render: say
  }),
  test_logging_tool: Tools.make({
    description: "Logs a line: sent to the client only at the log level its request asked for.",
    mutates: false,
    handler: () => Effect.as(Effect.logInfo("test_logging_tool ran"), "Logging complete"),
    render: say
  }),
  test_custom_header: Tools.make({
    description: "Echoes a value the client mirrors into the Mcp-Param-Value header.",
    input: Tools.jsonSchema({
      type: "object",
      properties: { value: { type: "string", "x-mcp-header": "Value" } },
      required: ["value"]
    }),
    mutates: false,
    handler: (input) => Effect.succeed(input)
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
  }),
  test_input_required_result_prompt: McpPrompts.make({
    description: "A prompt that asks the user for its context (an input-required round trip).",
    handler: () =>
      Effect.map(
        Ask.elicit("What context should the prompt use?", Schema.Struct({ context: Schema.String }), {
          key: "user_context"
        }),
        (answer) => [McpPrompts.user(`Prompt with context: ${accepted(answer)?.context ?? "none"}`)]
      )
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
    // The suite's hooks for list changes move the lists to what they are (a move all the same).
    const face = yield* Deferred.make<McpFace.Face>()
    const triggers = {
      test_trigger_tool_change: Tools.make({
        description: "Moves the tool list, so listeners hear tools/list_changed.",
        mutates: false,
        handler: (): Effect.Effect<void> =>
          Effect.flatMap(Deferred.await(face), (served) => Effect.orDie(served.setTools({ ...moved.tools }))),
        render: () => say("tools moved")
      }),
      test_trigger_prompt_change: Tools.make({
        description: "Moves the prompt list, so listeners hear prompts/list_changed.",
        mutates: false,
        handler: () =>
          Effect.flatMap(Deferred.await(face), (served) =>
            Effect.flatMap(served.prompts.current, (table) => served.setPrompts({ ...table }))),
        render: () =>
          say("prompts moved")
      })
    }
    const everyTool = { ...tools, ...askingTools, ...taskTools, ...triggers }
    const moved: { tools: Bundle.RootTools } = { tools: everyTool }
    const ticks = yield* PubSub.unbounded<void>()
    yield* PubSub.publish(ticks, undefined).pipe(Effect.repeat(Schedule.spaced("3 seconds")), Effect.forkScoped)
    const resources = resourcesOf(Stream.fromPubSub(ticks))
    const served = yield* McpHttp.serve({
      core: { surface: Empty, expose: {} },
      client: Effect.succeed({ clients: {} }),
      tools: everyTool,
      prompts,
      resources,
      serverInfo: { name: "effect-surface-conformance", version: "0.1.0" },
      // The suite expects a task of a call that runs half a second.
      tasks: { after: "200 millis" },
      // A client told to poll waits this long before resuming its stream.
      http: { port, retryInterval: "500 millis", ...http }
    })
    yield* Deferred.succeed(face, served.face)
    moved.tools = {
      ...everyTool,
      test_dynamic_tool: fixed("Appears after the server starts.", [Tools.text("dynamic")])
    }
    yield* served.face.setTools(moved.tools)
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
