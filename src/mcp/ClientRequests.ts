/**
 * Asking the connected client something from inside a handler: user input, or a model's answer.
 *
 * A tool that needs a confirmation or an LLM completion mid-call sends `elicitation/create` or
 * `sampling/createMessage` back to the host that called it, on that call's own stream. A handler
 * reaches this as the `McpClientRequests` service, which the session provides per request, so the
 * question always goes to the host whose request it serves. A client that never declared the
 * capability is not sent a request it would reject: the call fails at once with a typed
 * `ClientLacksCapability` naming what is missing. An elicitation's answer is decoded by the same
 * Effect Schema its form was derived from.
 *
 * @since 0.1.0
 */
import type { CreateMessageRequestParams, CreateMessageResult, ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { Context, Duration, Effect, Schema } from "effect"
import * as SchemaBridge from "../core/SchemaBridge.ts"
import { messageOf } from "../core/ToolFailure.ts"
import * as Elicitation from "./Elicitation.ts"

/**
 * The client never declared the capability the request needs, so it was not sent.
 *
 * @example
 * ```ts
 * import { McpClientRequests } from "effect-surface/mcp"
 * new McpClientRequests.ClientLacksCapability({ capability: "elicitation", method: "elicitation/create" }).message
 * // 'the connected client did not declare the "elicitation" capability, so it cannot be sent elicitation/create'
 * ```
 *
 * @since 0.1.0
 */
export class ClientLacksCapability extends Schema.TaggedError<ClientLacksCapability>()("ClientLacksCapability", {
  capability: Schema.Literals(["elicitation", "sampling"]),
  method: Schema.String
}) {
  override get message(): string {
    return `the connected client did not declare the "${this.capability}" capability, so it cannot be sent ${this.method}`
  }
}

/**
 * The request was sent and did not come back usable: the client answered with an error, the wait
 * timed out, the connection closed, or the answer did not match what was asked.
 *
 * @example
 * ```ts
 * import { McpClientRequests } from "effect-surface/mcp"
 * new McpClientRequests.ClientRequestFailed({ method: "sampling/createMessage", reason: "Request timed out" })
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
 * Every way asking the client can fail.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpClientRequests } from "effect-surface/mcp"
 *
 * declare const ask: Effect.Effect<string, McpClientRequests.ClientRequestError>
 * const answer = ask.pipe(Effect.catchTag("ClientLacksCapability", () => Effect.succeed("no client to ask")))
 * ```
 *
 * @since 0.1.0
 */
export type ClientRequestError = ClientLacksCapability | ClientRequestFailed | Elicitation.UnsupportedElicitationSchema

/**
 * How long to wait for the answer; the SDK's default (60 seconds) when absent. A person filling a
 * form may need longer than a model does.
 *
 * @example
 * ```ts
 * import type { McpClientRequests } from "effect-surface/mcp"
 * const options: McpClientRequests.AskOptions = { timeout: "10 minutes" }
 * ```
 *
 * @since 0.1.0
 */
export interface AskOptions {
  readonly timeout?: Duration.Input
}

/**
 * Asking the client of the current request. `capabilities` says what it declared.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { McpClientRequests } from "effect-surface/mcp"
 *
 * const confirm = Effect.gen(function*() {
 *   const client = yield* McpClientRequests.McpClientRequests
 *   const answer = yield* client.elicit("Delete the board?", Schema.Struct({ sure: Schema.Boolean }))
 *   return answer._tag === "Accept" && answer.content.sure
 * })
 * ```
 *
 * @since 0.1.0
 */
export class McpClientRequests extends Context.Service<McpClientRequests, {
  readonly capabilities: { readonly elicitation: boolean; readonly sampling: boolean }
  readonly elicit: <S extends Schema.Top>(
    message: string,
    schema: S,
    options?: AskOptions
  ) => Effect.Effect<Elicitation.Answer<S["Type"]>, ClientRequestError, S["DecodingServices"]>
  readonly sample: (
    request: CreateMessageRequestParams,
    options?: AskOptions
  ) => Effect.Effect<CreateMessageResult, ClientLacksCapability | ClientRequestFailed>
}>()("effect-surface/McpClientRequests") {}

/**
 * Ask the current request's user to fill in `schema` (see `McpElicitation.requestedSchema` for what
 * a form can ask); the accepted content is decoded by `schema`.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { McpClientRequests } from "effect-surface/mcp"
 *
 * const greet = Effect.gen(function*() {
 *   const answer = yield* McpClientRequests.elicit("Who are you?", Schema.Struct({ name: Schema.String }))
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
): Effect.Effect<Elicitation.Answer<S["Type"]>, ClientRequestError, McpClientRequests | S["DecodingServices"]> =>
  McpClientRequests.use((client) => client.elicit(message, schema, options))

/**
 * Ask the current request's client to sample its model (`sampling/createMessage`).
 *
 * @example
 * ```ts
 * import { McpClientRequests } from "effect-surface/mcp"
 *
 * const reply = McpClientRequests.sample({
 *   messages: [{ role: "user", content: { type: "text", text: "Name a colour" } }],
 *   maxTokens: 100
 * }) // Effect of the model's message, requiring McpClientRequests
 * ```
 *
 * @since 0.1.0
 */
export const sample = (
  request: CreateMessageRequestParams,
  options?: AskOptions
): Effect.Effect<CreateMessageResult, ClientLacksCapability | ClientRequestFailed, McpClientRequests> =>
  McpClientRequests.use((client) => client.sample(request, options))

/**
 * The wire a session offers: the client's declared capabilities and the two raw requests, sent on
 * the current request's stream. Promises, because this is the SDK boundary.
 *
 * @example
 * ```ts
 * import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
 * import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js"
 * import type { McpClientRequests } from "effect-surface/mcp"
 *
 * declare const server: Server
 * declare const relatedRequestId: string | number
 * const channel: McpClientRequests.Channel = {
 *   capabilities: { elicitation: true, sampling: false },
 *   elicit: (params, options) =>
 *     server.elicitInput(
 *       { mode: "form", message: params.message, requestedSchema: params.requestedSchema as ElicitRequestFormParams["requestedSchema"] },
 *       { ...options, relatedRequestId }
 *     ),
 *   sample: (params, options) => server.createMessage(params, { ...options, relatedRequestId })
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Channel {
  readonly capabilities: { readonly elicitation: boolean; readonly sampling: boolean }
  readonly elicit: (
    params: { readonly message: string; readonly requestedSchema: Elicitation.RequestedSchema },
    options: { readonly signal: AbortSignal; readonly timeout?: number }
  ) => Promise<ElicitResult>
  readonly sample: (
    params: CreateMessageRequestParams,
    options: { readonly signal: AbortSignal; readonly timeout?: number }
  ) => Promise<CreateMessageResult>
}

const ELICIT = "elicitation/create"
const SAMPLE = "sampling/createMessage"

const sendOptions = (signal: AbortSignal, options: AskOptions | undefined) =>
  options?.timeout === undefined ? { signal } : { signal, timeout: Duration.toMillis(Duration.fromInputUnsafe(options.timeout)) }

// The SDK rejects with an McpError whose message already carries "MCP error <code>:"; kept as is,
// because it is the one place the client's own words survive.
const failed = (method: string) => (cause: unknown) => new ClientRequestFailed({ method, reason: messageOf(cause) })

/**
 * The service over a session's channel: capability checks first, then the request (interrupting
 * the handler aborts it), then the answer decoded.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClientRequests } from "effect-surface/mcp"
 *
 * declare const channel: McpClientRequests.Channel
 * declare const handler: Effect.Effect<string, never, McpClientRequests.McpClientRequests>
 * handler.pipe(Effect.provideService(McpClientRequests.McpClientRequests, McpClientRequests.make(channel)))
 * ```
 *
 * @since 0.1.0
 */
export const make = (channel: Channel): McpClientRequests["Service"] => ({
  capabilities: channel.capabilities,
  elicit: <S extends Schema.Top>(message: string, schema: S, options?: AskOptions) =>
    Effect.gen(function*(): Effect.fn.Return<Elicitation.Answer<S["Type"]>, ClientRequestError, S["DecodingServices"]> {
      if (!channel.capabilities.elicitation) return yield* new ClientLacksCapability({ capability: "elicitation", method: ELICIT })
      const requestedSchema = yield* Effect.fromResult(Elicitation.requestedSchema(schema))
      const result = yield* Effect.tryPromise({
        try: (signal) => channel.elicit({ message, requestedSchema }, sendOptions(signal, options)),
        catch: failed(ELICIT)
      })
      switch (result.action) {
        case "decline":
          return { _tag: "Decline" }
        case "cancel":
          return { _tag: "Cancel" }
        case "accept": {
          const content: S["Type"] = yield* SchemaBridge.compile(schema).decode(result.content ?? {}).pipe(
            Effect.mapError((e) => new ClientRequestFailed({ method: ELICIT, reason: `the accepted answer does not match the schema: ${e.message}` }))
          )
          return { _tag: "Accept", content }
        }
      }
    }),
  sample: (request, options) =>
    channel.capabilities.sampling
      ? Effect.tryPromise({ try: (signal) => channel.sample(request, sendOptions(signal, options)), catch: failed(SAMPLE) })
      : Effect.fail(new ClientLacksCapability({ capability: "sampling", method: SAMPLE }))
})

/**
 * Asking that always fails with `ClientLacksCapability`: what a face with no client to ask (a
 * command line, a test, a client that declared nothing) provides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClientRequests } from "effect-surface/mcp"
 *
 * declare const handler: Effect.Effect<string, never, McpClientRequests.McpClientRequests>
 * handler.pipe(Effect.provideService(McpClientRequests.McpClientRequests, McpClientRequests.none))
 * ```
 *
 * @since 0.1.0
 */
export const none: McpClientRequests["Service"] = make({
  capabilities: { elicitation: false, sampling: false },
  elicit: () => Promise.reject(new Error("no client to ask")),
  sample: () => Promise.reject(new Error("no client to ask"))
})
