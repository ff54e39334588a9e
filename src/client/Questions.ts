/**
 * What a remote server may ask the person or the model behind a toolset, and the handlers that
 * answer it.
 *
 * A server's tool can stop to ask: a form for the person (elicitation), a completion from the
 * client's model (sampling), or the client's roots. In 2025-11-25 the server sends the question as
 * a request of its own; in 2026-07-28 the call's result says `input_required` and the client sends
 * the call again with the answers. Either way the question reaches the one handler the toolset was
 * given here, as the same value, and the answer goes back checked. A toolset given no handler for a
 * kind of question does not advertise it, and a server that asks anyway is declined.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"

/**
 * An answer a handler gives: the value, a Promise of it, or an Effect.
 *
 * @example
 * ```ts
 * import type { McpQuestions } from "effect-surface/client"
 * const now: McpQuestions.Answer<string> = "ok"
 * const later: McpQuestions.Answer<string> = Promise.resolve("ok")
 * ```
 *
 * @since 0.1.0
 */
export type Answer<A> = A | PromiseLike<A> | Effect.Effect<A, unknown>

/**
 * A form a server asks the person to fill in: its message and the JSON Schema of the fields.
 *
 * @example
 * ```ts
 * import type { McpQuestions } from "effect-surface/client"
 * const request: McpQuestions.ElicitRequest = {
 *   server: "docs",
 *   message: "Your name?",
 *   requestedSchema: { type: "object", properties: { name: { type: "string" } } }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface ElicitRequest {
  /** The configured name of the server asking. */
  readonly server: string
  readonly message: string
  readonly requestedSchema: { readonly [key: string]: unknown }
}

/**
 * What the person answered: the fields (missing ones take the schema's defaults), or no.
 *
 * @example
 * ```ts
 * import type { McpQuestions } from "effect-surface/client"
 * const yes: McpQuestions.ElicitAnswer = { action: "accept", content: { name: "Ada" } }
 * const no: McpQuestions.ElicitAnswer = { action: "decline" }
 * ```
 *
 * @since 0.1.0
 */
export type ElicitAnswer =
  | {
    readonly action: "accept"
    readonly content?: { readonly [key: string]: string | number | boolean | ReadonlyArray<string> } | undefined
  }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/**
 * A completion a server asks of the client's model: the request's params as the server sent them
 * (`messages`, `maxTokens`, `systemPrompt`, …).
 *
 * @example
 * ```ts
 * import type { McpQuestions } from "effect-surface/client"
 * const request: McpQuestions.SampleRequest = {
 *   server: "docs",
 *   params: { messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 100 }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface SampleRequest {
  readonly server: string
  readonly params: { readonly [key: string]: unknown }
}

/**
 * What the model wrote.
 *
 * @example
 * ```ts
 * import type { McpQuestions } from "effect-surface/client"
 * const answer: McpQuestions.SampleAnswer = { role: "assistant", model: "m", content: { type: "text", text: "Hello" } }
 * ```
 *
 * @since 0.1.0
 */
export interface SampleAnswer {
  readonly role: "assistant" | "user"
  readonly model: string
  readonly content: { readonly type: string; readonly [key: string]: unknown }
  readonly stopReason?: string | undefined
}

/**
 * One root the client offers a server.
 *
 * @example
 * ```ts
 * import type { McpQuestions } from "effect-surface/client"
 * const root: McpQuestions.Root = { uri: "file:///home/ada/project", name: "project" }
 * ```
 *
 * @since 0.1.0
 */
export interface Root {
  readonly uri: string
  readonly name?: string | undefined
}

/**
 * The handlers a toolset answers servers' questions with; each one left out is neither advertised
 * nor answered (a form is declined, the others refused).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpQuestions } from "effect-surface/client"
 * const handlers: McpQuestions.Handlers = {
 *   elicit: (request) => Effect.succeed({ action: "accept", content: { confirmed: true } }),
 *   sample: async () => ({ role: "assistant", model: "local", content: { type: "text", text: "ok" } }),
 *   roots: [{ uri: "file:///srv/project" }]
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Handlers {
  readonly elicit?: ((request: ElicitRequest) => Answer<ElicitAnswer>) | undefined
  readonly sample?: ((request: SampleRequest) => Answer<SampleAnswer>) | undefined
  readonly roots?: ReadonlyArray<Root> | ((server: string) => Answer<ReadonlyArray<Root>>) | undefined
}
