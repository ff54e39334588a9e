/**
 * Prompts a bundle offers beside its tools: named message templates a user picks in the host.
 *
 * A prompt is declared like a tool — a description, its arguments as an Effect Schema, a handler
 * that is an Effect over the bundle's clients — so what `prompts/list` advertises (each argument,
 * required or not) and what `prompts/get` accepts are read off one declaration and cannot drift.
 * MCP prompt arguments are strings, so the schema is a struct of string fields; a missing or
 * malformed argument is refused by name before the handler runs. A prompt's messages may carry
 * text, images, audio and embedded resources, the same blocks a tool result carries.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type * as Bundle from "../../core/Bundle.ts"
import type * as Json from "../../core/Json.ts"
import * as SchemaBridge from "../../core/SchemaBridge.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import type * as ToolResult from "../../core/ToolResult.ts"
import type * as Completion from "./Completion.ts"
import type * as Caller from "../../core/Caller.ts"
import * as RpcError from "./RpcError.ts"

// By its tag: a refusal raised by another copy of this package is still one.
const isProtocolError = (u: unknown): u is RpcError.ProtocolError => Predicate.isTagged(u, "ProtocolError")

/**
 * What one prompt message may carry: text, an image, audio, or an embedded resource.
 *
 * @example
 * ```ts
 * import type { McpPrompts } from "effect-surface/mcp"
 * const block: McpPrompts.Content = { type: "text", text: "Summarise this:" }
 * ```
 *
 * @since 0.1.0
 */
export type Content = ToolResult.ToolContent

/**
 * One message of a prompt, from the user or the assistant.
 *
 * @example
 * ```ts
 * import type { McpPrompts } from "effect-surface/mcp"
 * const message: McpPrompts.Message = { role: "user", content: { type: "text", text: "hello" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content: Content
}

/**
 * A prompt's arguments: a struct of string fields (MCP sends prompt arguments as strings). An
 * optional field (`Schema.optionalKey(Schema.String)`) is an optional argument.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { McpPrompts } from "effect-surface/mcp"
 * const args: McpPrompts.ArgumentsSchema = Schema.Struct({ topic: Schema.String, tone: Schema.optionalKey(Schema.String) })
 * ```
 *
 * @since 0.1.0
 */
export type ArgumentsSchema = Schema.Top & {
  readonly Encoded: { readonly [name: string]: string | undefined }
  readonly DecodingServices: never
}

/**
 * A prompt over arguments `S` (none when `undefined`): its listing, per-argument completers, and the
 * handler building its messages from the decoded arguments and the bundle's clients. The handler may
 * use the request services (`Caller.Services`) like a tool's; a `ProtocolError` it fails with is
 * answered as is, any other failure it fails with (a task that does not exist) as the caller's
 * mistake (-32602, its sentence naming the prompt), and a defect as an internal error (-32603).
 *
 * @example
 * ```ts
 * import { Effect, Predicate, Schema } from "effect"
 * import { McpPrompts } from "effect-surface/mcp"
 *
 * const review = McpPrompts.make({
 *   description: "Review a task",
 *   arguments: Schema.Struct({ id: Schema.String }),
 *   handler: ({ id }) => Effect.succeed([McpPrompts.user(`Review task ${id}`)])
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Prompt<S extends ArgumentsSchema | undefined, E = unknown, R = Caller.Services> {
  readonly title?: string
  readonly description: string
  readonly arguments?: S
  readonly complete?: S extends ArgumentsSchema ? { readonly [K in keyof S["Type"] & string]?: Completion.Completer }
    : never
  readonly handler: (
    args: S extends ArgumentsSchema ? S["Type"] : void,
    clients: Bundle.Clients
  ) => Effect.Effect<ReadonlyArray<Message>, E, R>
}

/**
 * Any prompt, for a table mixing argument types. `any` is sound for the same reason as
 * `Tools.AnyTool`: each prompt's types were checked when `make` built it.
 *
 * @example
 * ```ts
 * import type { McpPrompts } from "effect-surface/mcp"
 *
 * declare const review: McpPrompts.Prompt<undefined>
 * declare const summarise: McpPrompts.AnyPrompt
 * const table: McpPrompts.Table = { review, summarise }
 * ```
 *
 * @since 0.1.0
 */
export type AnyPrompt = // `any`: the handler's argument position is contravariant, so no concrete type admits every prompt.
  Prompt<any, unknown, Caller.Services>

/**
 * The prompts a face serves, by name.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpPrompts } from "effect-surface/mcp"
 *
 * const review = McpPrompts.make({ description: "Review the board", handler: () => Effect.succeed([McpPrompts.user("Review the board")]) })
 * const prompts: McpPrompts.Table = { review }
 * ```
 *
 * @since 0.1.0
 */
export type Table = { readonly [name: string]: AnyPrompt }

/**
 * Build a prompt, typing the handler's arguments and the completer keys from the arguments schema.
 *
 * @example
 * ```ts
 * import { Effect, Predicate, Schema } from "effect"
 * import { McpCompletion, McpPrompts } from "effect-surface/mcp"
 *
 * const greet = McpPrompts.make({
 *   description: "Greet someone",
 *   arguments: Schema.Struct({ name: Schema.String }),
 *   complete: { name: McpCompletion.fromValues(["Ada", "Alan"]) },
 *   handler: ({ name }) => Effect.succeed([McpPrompts.user(`Say hello to ${name}`)])
 * })
 * ```
 *
 * @since 0.1.0
 */
export function make<S extends ArgumentsSchema, E = never, R extends Caller.Services = never>(
  prompt: Prompt<S, E, R> & { readonly arguments: S }
): Prompt<S, E, R>
export function make<E = never, R extends Caller.Services = never>(
  prompt: Prompt<undefined, E, R> & { readonly arguments?: undefined }
): Prompt<undefined, E, R>
export function make<S extends ArgumentsSchema | undefined, E, R>(prompt: Prompt<S, E, R>): Prompt<S, E, R> {
  return prompt
}

const block = (content: string | Content): Content =>
  typeof content === "string" ? { type: "text", text: content } : content

/**
 * A message from the user; a string is a text block.
 *
 * @example
 * ```ts
 * import { McpPrompts } from "effect-surface/mcp"
 * McpPrompts.user("Summarise the board") // { role: "user", content: { type: "text", text: "Summarise the board" } }
 * ```
 *
 * @since 0.1.0
 */
export const user = (content: string | Content): Message => ({ role: "user", content: block(content) })

/**
 * A message from the assistant; a string is a text block.
 *
 * @example
 * ```ts
 * import { McpPrompts } from "effect-surface/mcp"
 * McpPrompts.assistant("Here is the summary:")
 * ```
 *
 * @since 0.1.0
 */
export const assistant = (content: string | Content): Message => ({ role: "assistant", content: block(content) })

const isRecord = (u: unknown): u is { readonly [key: string]: Json.Json } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The `prompts/list` entry of a prompt: its arguments read off the schema, optional fields not
 * required, each with the field's `title` and `description` annotations.
 *
 * @example
 * ```ts
 * import { McpPrompts } from "effect-surface/mcp"
 *
 * declare const greet: McpPrompts.AnyPrompt
 * McpPrompts.advertise("greet", greet)
 * // { name: "greet", description: "Greet someone", arguments: [{ name: "name", required: true }] }
 * ```
 *
 * @since 0.1.0
 */
export const advertise = (name: string, prompt: AnyPrompt): Json.JsonObject => {
  const doc = prompt.arguments === undefined ? undefined : SchemaBridge.compile(prompt.arguments).jsonSchema
  const properties = isRecord(doc?.["properties"]) ? doc["properties"] : {}
  const required = Array.isArray(doc?.["required"]) ? doc["required"] : []
  const args = Object.entries(properties).map(([field, property]): Json.JsonObject => {
    const text = (key: string) =>
      isRecord(property) && typeof property[key] === "string" ? { [key]: property[key] } : {}
    return { name: field, ...text("title"), ...text("description"), required: required.includes(field) }
  })
  return {
    name,
    ...(prompt.title === undefined ? {} : { title: prompt.title }),
    description: prompt.description,
    arguments: args
  }
}

// A failure the handler itself failed with, kept apart from one of the link it ran over.
class Declared extends Data.TaggedClass("Declared")<{ readonly error: unknown }> {}

const invalid = (message: string, data: Json.JsonObject) =>
  new RpcError.ProtocolError({ code: RpcError.invalidParams, message, data })

/**
 * The answer to `prompts/get` for one prompt: its arguments decoded (refused as invalid params,
 * naming each wrong or missing argument), then its handler run over `clients`: a failure the handler
 * fails with is refused as invalid params too, one of the link to the clients is an internal error.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { McpPrompts } from "effect-surface/mcp"
 *
 * declare const greet: McpPrompts.AnyPrompt
 * declare const clients: Bundle.Clients
 * const result = McpPrompts.get("greet", greet, { name: "Ada" }, (run) => run(clients)) // { description, messages }
 * ```
 *
 * @since 0.1.0
 */
export const get = (
  name: string,
  prompt: AnyPrompt,
  args: unknown,
  withClients: <A, E, R>(f: (clients: Bundle.Clients) => Effect.Effect<A, E, R>) => Effect.Effect<A, unknown, R>
): Effect.Effect<
  { readonly description: string; readonly messages: Array<Message> },
  RpcError.ProtocolError,
  Caller.Services
> =>
  Effect.gen(function*() {
    const decoded: unknown = prompt.arguments === undefined
      ? undefined
      : yield* SchemaBridge.compile(prompt.arguments).decode(args ?? {}).pipe(
        Effect.mapError((e) =>
          invalid(`prompt "${name}": ${e.message}`, {
            name,
            issues: e.issues.map((i) => ({ path: [...i.path], message: i.message }))
          })
        )
      )
    // The handler's own failures are told apart from the link's: what a prompt declares (a task that
    // is not there) is the caller's mistake, a link that could not be reached is the server's.
    const messages = yield* withClients((clients) =>
      Effect.mapError(prompt.handler(decoded, clients), (error) => new Declared({ error }))
    ).pipe(
      Effect.mapError((failed) => {
        const error = failed instanceof Declared ? failed.error : failed
        if (isProtocolError(error)) return error
        return new RpcError.ProtocolError({
          code: failed instanceof Declared ? RpcError.invalidParams : RpcError.internalError,
          message: `prompt "${name}" failed: ${messageOf(error)}`,
          data: { name }
        })
      })
    )
    return { description: prompt.description, messages: [...messages] }
  })

/**
 * The completer of one argument of a prompt, if it declared one.
 *
 * @example
 * ```ts
 * import { McpPrompts } from "effect-surface/mcp"
 *
 * declare const greet: McpPrompts.AnyPrompt
 * McpPrompts.completerOf(greet, "name") // the `name` completer
 * ```
 *
 * @since 0.1.0
 */
export const completerOf = (prompt: AnyPrompt, argument: string): Completion.Completer | undefined => {
  const table: { readonly [argument: string]: Completion.Completer | undefined } | undefined = prompt.complete
  return table !== undefined && Object.hasOwn(table, argument) ? table[argument] : undefined
}
