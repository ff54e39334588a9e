/**
 * Asking whoever called a handler something, from inside the handler: a person's input, or a model's
 * answer.
 *
 * A tool that needs a confirmation or a completion mid-call asks its caller — over MCP an
 * `elicitation/create` or `sampling/createMessage` on that call's own stream, over ACP the editor.
 * A handler reaches this as the `Ask` service, which each face provides per request, so the question
 * always goes to the caller whose request it serves. A caller that never declared the capability is
 * not sent a request it would reject: the call fails at once with a typed `ClientLacksCapability`
 * naming what is missing. An elicitation's answer is decoded by the same Effect Schema its form was
 * derived from. Nothing here names a protocol SDK: a face adapts its SDK to `Channel`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Elicitation from "./Elicitation.ts"
import type * as Json from "./Json.ts"
import * as SchemaBridge from "./SchemaBridge.ts"
import { messageOf } from "./ToolFailure.ts"
import type * as ToolResult from "./ToolResult.ts"

/**
 * The caller never declared the capability the request needs, so it was not sent.
 *
 * @example
 * ```ts
 * import { Ask } from "effect-surface"
 * new Ask.ClientLacksCapability({ capability: "elicitation", method: "elicitation/create" }).message
 * // 'the connected client did not declare the "elicitation" capability, so it cannot be sent elicitation/create'
 * ```
 *
 * @since 0.1.0
 */
export class ClientLacksCapability extends Schema.TaggedError<ClientLacksCapability>()("ClientLacksCapability", {
  capability: Schema.Literals(["elicitation", "sampling", "roots"]),
  method: Schema.String
}) {
  override get message(): string {
    return `the connected client did not declare the "${this.capability}" capability, so it cannot be sent ${this.method}`
  }
}

/**
 * The request was sent and did not come back usable: the caller answered with an error, the wait
 * timed out, the connection closed, or the answer did not match what was asked.
 *
 * @example
 * ```ts
 * import { Ask } from "effect-surface"
 * new Ask.ClientRequestFailed({ method: "sampling/createMessage", reason: "Request timed out" })
 * ```
 *
 * @since 0.1.0
 */
export class ClientRequestFailed extends Schema.TaggedError<ClientRequestFailed>()("ClientRequestFailed", {
  method: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.method} to the connected client failed: ${this.reason}`
  }
}

/**
 * Every way asking can fail.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Ask } from "effect-surface"
 *
 * declare const ask: Effect.Effect<string, Ask.AskError>
 * const answer = ask.pipe(Effect.catchTag("ClientLacksCapability", () => Effect.succeed("no one to ask")))
 * ```
 *
 * @since 0.1.0
 */
export type AskError = ClientLacksCapability | ClientRequestFailed | Elicitation.UnsupportedElicitationSchema

/**
 * How long to wait for the answer (the face's default when absent: a person filling a form may need
 * longer than a model does), and the question's name. Where a question travels inside the call's
 * result (MCP 2026-07-28's `input_required`), the name is its key there, and an answer the client
 * sent ahead under that key answers it at once; by default the `n`th question of a call is named
 * `elicit-n`, `sample-n` or `roots-n`.
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const options: Ask.AskOptions = { timeout: "10 minutes", key: "confirm" }
 * ```
 *
 * @since 0.1.0
 */
export interface AskOptions {
  readonly timeout?: Duration.Input
  readonly key?: string
}

/**
 * A root the caller works in: a `file://` URI and, optionally, a name to show for it.
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const root: Ask.Root = { uri: "file:///home/ada/project", name: "project" }
 * ```
 *
 * @since 0.1.0
 */
export interface Root {
  readonly uri: string
  readonly name?: string | undefined
}

/**
 * What a sampling message may carry.
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const block: Ask.SamplingContent = { type: "text", text: "Name a colour" }
 * ```
 *
 * @since 0.1.0
 */
export type SamplingContent = ToolResult.TextContent | ToolResult.ImageContent | ToolResult.AudioContent

/**
 * A request for a model's answer: the conversation so far and how long the answer may be.
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const request: Ask.SampleRequest = { messages: [{ role: "user", content: { type: "text", text: "Name a colour" } }], maxTokens: 100 }
 * ```
 *
 * @since 0.1.0
 */
export interface SampleRequest {
  readonly messages: ReadonlyArray<{ readonly role: "user" | "assistant"; readonly content: SamplingContent }>
  readonly maxTokens: number
  readonly systemPrompt?: string
  readonly temperature?: number
  readonly stopSequences?: ReadonlyArray<string>
  readonly includeContext?: "none" | "thisServer" | "allServers"
  readonly modelPreferences?: Json.JsonObject
  readonly metadata?: Json.JsonObject
}

/**
 * A model's answer.
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const reply: Ask.SampleResult = { role: "assistant", content: { type: "text", text: "teal" }, model: "m-1" }
 * ```
 *
 * @since 0.1.0
 */
export interface SampleResult {
  readonly role: "user" | "assistant"
  readonly content: SamplingContent
  readonly model: string
  readonly stopReason?: string
}

/**
 * Asking the caller of the current request. `capabilities` says what it declared.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Ask } from "effect-surface"
 *
 * const confirm = Effect.gen(function*() {
 *   const caller = yield* Ask.Ask
 *   const answer = yield* caller.elicit("Delete the board?", Schema.Struct({ sure: Schema.Boolean }))
 *   return answer._tag === "Accept" && answer.content.sure
 * })
 * ```
 *
 * @since 0.1.0
 */
export class Ask extends Context.Service<Ask, {
  readonly capabilities: Capabilities
  readonly elicit: <S extends Schema.Top>(
    message: string,
    schema: S,
    options?: AskOptions
  ) => Effect.Effect<Elicitation.Answer<S["Type"]>, AskError, S["DecodingServices"]>
  readonly sample: (
    request: SampleRequest,
    options?: AskOptions
  ) => Effect.Effect<SampleResult, ClientLacksCapability | ClientRequestFailed>
  readonly roots: (
    options?: AskOptions
  ) => Effect.Effect<ReadonlyArray<Root>, ClientLacksCapability | ClientRequestFailed>
}>()("effect-surface/Ask") {}

/**
 * What the caller declared it can be asked.
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const declared: Ask.Capabilities = { elicitation: true, sampling: false, roots: true }
 * ```
 *
 * @since 0.1.0
 */
export interface Capabilities {
  readonly elicitation: boolean
  readonly sampling: boolean
  readonly roots: boolean
}

/**
 * Ask the current request's person to fill in `schema` (see `Elicitation.requestedSchema` for what a
 * form can ask); the accepted content is decoded by `schema`.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Ask } from "effect-surface"
 *
 * const greet = Effect.gen(function*() {
 *   const answer = yield* Ask.elicit("Who are you?", Schema.Struct({ name: Schema.String }))
 *   if (answer._tag === "Accept") yield* Effect.log(`hello ${answer.content.name}`)
 * })
 * ```
 *
 * @since 0.1.0
 */
export const elicit = <S extends Schema.Top>(
  message: string,
  schema: S,
  options?: AskOptions
): Effect.Effect<Elicitation.Answer<S["Type"]>, AskError, Ask | S["DecodingServices"]> =>
  Ask.use((caller) => caller.elicit(message, schema, options))

/**
 * Ask the current request's caller for a model's answer.
 *
 * @example
 * ```ts
 * import { Ask } from "effect-surface"
 *
 * const reply = Ask.sample({
 *   messages: [{ role: "user", content: { type: "text", text: "Name a colour" } }],
 *   maxTokens: 100
 * }) // Effect of the model's message, requiring Ask
 * ```
 *
 * @since 0.1.0
 */
export const sample = (
  request: SampleRequest,
  options?: AskOptions
): Effect.Effect<SampleResult, ClientLacksCapability | ClientRequestFailed, Ask> =>
  Ask.use((caller) => caller.sample(request, options))

/**
 * Ask the current request's caller for the roots it works in (its `roots/list`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Ask } from "effect-surface"
 *
 * const workspace = Effect.map(Ask.roots(), (roots) => roots.map((root) => root.uri))
 * ```
 *
 * @since 0.1.0
 */
export const roots = (
  options?: AskOptions
): Effect.Effect<ReadonlyArray<Root>, ClientLacksCapability | ClientRequestFailed, Ask> =>
  Ask.use((caller) => caller.roots(options))

/**
 * An elicitation's raw reply, before its content is decoded.
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const reply: Ask.ElicitReply = { action: "accept", content: { sure: true } }
 * ```
 *
 * @since 0.1.0
 */
export interface ElicitReply {
  readonly action: "accept" | "decline" | "cancel"
  readonly content?: { readonly [field: string]: unknown } | undefined
}

/**
 * What a face offers to ask through: the caller's declared capabilities and the three raw requests,
 * each an Effect (interrupting it abandons the request) that fails with whatever its transport says.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Ask } from "effect-surface"
 *
 * const channel: Ask.Channel = {
 *   capabilities: { elicitation: true, sampling: false, roots: false },
 *   elicit: () => Effect.succeed({ action: "decline" }),
 *   sample: () => Effect.fail("no model"),
 *   roots: () => Effect.fail("no roots")
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Channel {
  readonly capabilities: Capabilities
  readonly elicit: (
    params: { readonly message: string; readonly requestedSchema: Elicitation.RequestedSchema },
    asked: Asked
  ) => Effect.Effect<ElicitReply, unknown>
  readonly sample: (request: SampleRequest, asked: Asked) => Effect.Effect<SampleResult, unknown>
  readonly roots: (asked: Asked) => Effect.Effect<ReadonlyArray<Root>, unknown>
}

/**
 * How one question was asked: its wait, and the name the handler gave it (see `AskOptions`).
 *
 * @example
 * ```ts
 * import type { Ask } from "effect-surface"
 * const asked: Ask.Asked = { timeout: undefined, key: "confirm" }
 * ```
 *
 * @since 0.1.0
 */
export interface Asked {
  readonly timeout: Duration.Duration | undefined
  readonly key: string | undefined
}

const ELICIT = "elicitation/create"
const SAMPLE = "sampling/createMessage"
const ROOTS = "roots/list"

const askedOf = (options: AskOptions | undefined): Asked => ({
  timeout: options?.timeout === undefined ? undefined : Duration.fromInputUnsafe(options.timeout),
  key: options?.key
})

// A transport's rejection keeps its own words: the one place the caller's reason survives.
const failed = (method: string) => (cause: unknown) => new ClientRequestFailed({ method, reason: messageOf(cause) })

const decodeReply = <S extends Schema.Top>(schema: S, reply: ElicitReply) =>
  Effect.gen(function*(): Effect.fn.Return<Elicitation.Answer<S["Type"]>, ClientRequestFailed, S["DecodingServices"]> {
    switch (reply.action) {
      case "decline":
        return { _tag: "Decline" }
      case "cancel":
        return { _tag: "Cancel" }
      case "accept": {
        const content: S["Type"] = yield* SchemaBridge.compile(schema).decode(reply.content ?? {}).pipe(
          Effect.mapError((e) =>
            new ClientRequestFailed({
              method: ELICIT,
              reason: `the accepted answer does not match the schema: ${e.message}`
            })
          )
        )
        return { _tag: "Accept", content }
      }
    }
  })

/**
 * The service over a face's channel: capability checks first, then the request, then the answer
 * decoded.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Ask } from "effect-surface"
 *
 * declare const channel: Ask.Channel
 * declare const handler: Effect.Effect<string, never, Ask.Ask>
 * handler.pipe(Effect.provideService(Ask.Ask, Ask.make(channel)))
 * ```
 *
 * @since 0.1.0
 */
export const make = (channel: Channel): Ask["Service"] => ({
  capabilities: channel.capabilities,
  elicit: <S extends Schema.Top>(message: string, schema: S, options?: AskOptions) =>
    Effect.gen(function*(): Effect.fn.Return<Elicitation.Answer<S["Type"]>, AskError, S["DecodingServices"]> {
      if (!channel.capabilities.elicitation)
        return yield* new ClientLacksCapability({ capability: "elicitation", method: ELICIT })
      const requestedSchema = yield* Effect.fromResult(Elicitation.requestedSchema(schema))
      const reply = yield* Effect.mapError(
        channel.elicit({ message, requestedSchema }, askedOf(options)),
        failed(ELICIT)
      )
      return yield* decodeReply(schema, reply)
    }),
  sample: (request, options) =>
    channel.capabilities.sampling
      ? Effect.mapError(channel.sample(request, askedOf(options)), failed(SAMPLE))
      : Effect.fail(new ClientLacksCapability({ capability: "sampling", method: SAMPLE })),
  roots: (options) =>
    channel.capabilities.roots
      ? Effect.mapError(channel.roots(askedOf(options)), failed(ROOTS))
      : Effect.fail(new ClientLacksCapability({ capability: "roots", method: ROOTS }))
})

/**
 * Asking that always fails with `ClientLacksCapability`: what a caller with no one to ask (a command
 * line, a test, a client that declared nothing) provides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Ask } from "effect-surface"
 *
 * declare const handler: Effect.Effect<string, never, Ask.Ask>
 * handler.pipe(Effect.provideService(Ask.Ask, Ask.none))
 * ```
 *
 * @since 0.1.0
 */
export const none: Ask["Service"] = make({
  capabilities: { elicitation: false, sampling: false, roots: false },
  elicit: () => Effect.fail("no one to ask"),
  sample: () => Effect.fail("no one to ask"),
  roots: () => Effect.fail("no one to ask")
})
