/**
 * The verb record an app hands to every face, and nothing that serves it.
 *
 * An app's hand-authored tools are one table. The MCP face serves it and the CLI face parses argv
 * against it, so the table must be loadable without the MCP SDK: a command line's `--help` must not
 * pay to load a server it never boots. This module is that table's whole vocabulary — the record,
 * its typed constructor, the refusal, the result framing — and it imports no module of
 * `@modelcontextprotocol/sdk`, directly or transitively (a test spawns Node to prove it).
 *
 * @since 0.1.0
 */
import type { Effect, Schema } from "effect"
import * as ToolResult from "./core/ToolResult.ts"
import type { JsonObject } from "./core/Json.ts"

export { is as isToolFailure, messageOf, ToolFailure } from "./core/ToolFailure.ts"
export { audio, content, failure, fromExit, frame, image, ok, okImage, resource, text } from "./core/ToolResult.ts"
export type {
  AudioContent,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  TextContent,
  ToolContent,
  ToolResult
} from "./core/ToolResult.ts"

/**
 * A tool input given as a raw JSON Schema rather than an Effect Schema: advertised verbatim and
 * checked by the reverse decoder, for tools whose schema comes from elsewhere (a plain tool object,
 * a proxied server). The handler receives the checked JSON as `unknown`.
 *
 * @example
 * ```ts
 * import { Tools } from "effect-surface"
 * const input = Tools.jsonSchema({ type: "object", properties: { id: { type: "string" } }, additionalProperties: false })
 * ```
 *
 * @since 0.1.0
 */
export interface JsonSchemaInput {
  readonly _tag: "JsonSchemaInput"
  readonly schema: JsonObject
  /** Check `pattern`s too; off by default, since a remote pattern can be made to run for ever. */
  readonly trustPatterns: boolean
}

/**
 * Declare a tool input by its raw JSON Schema (an object schema).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Tools } from "effect-surface"
 *
 * const lookup = Tools.make({
 *   description: "Look a record up",
 *   input: Tools.jsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"] }),
 *   mutates: false,
 *   handler: (input) => Effect.succeed(input)
 * })
 * ```
 *
 * @since 0.1.0
 */
export const jsonSchema = (schema: JsonObject, options?: { readonly trustPatterns?: boolean }): JsonSchemaInput => ({
  _tag: "JsonSchemaInput",
  schema,
  trustPatterns: options?.trustPatterns === true
})

/**
 * What a tool's input may be declared with: any Effect Schema (the face decodes the wire input
 * through its JSON codec; a scalar, array or union input is advertised wrapped under `value`), or a
 * raw JSON Schema (`jsonSchema`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Tools } from "effect-surface"
 * const input: Tools.ToolInputSchema = Schema.Struct({ id: Schema.String })
 * ```
 *
 * @since 0.1.0
 */
export type ToolInputSchema = Schema.Top | JsonSchemaInput

/**
 * What a handler receives for a given input schema: the schema's decoded `Type`, or `void` for a
 * tool declared without one.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * type In = InputOf<Schema.Struct<{ id: typeof Schema.String }>> // { readonly id: string }
 * type None = InputOf<undefined> // void
 * ```
 *
 * @since 0.1.0
 */
export type InputOf<S extends ToolInputSchema | undefined> = S extends JsonSchemaInput ? unknown
  : S extends Schema.Top ? S["Type"]
  : void

/**
 * A hand-authored, call-shaped capability. `handler` composes over the live client `C`; it is an
 * Effect, so cancellation is fiber interruption (no abort signal). `render` overrides how a success
 * becomes content — declared per tool, so a handler cannot change its content type call to call.
 * `mutates` tells a face (and a policy) whether a call can change the app's state.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * const ping: Tool<undefined, string, never, never, unknown> = {
 *   description: "Answer pong",
 *   mutates: false,
 *   handler: () => Effect.succeed("pong")
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Tool<S extends ToolInputSchema | undefined, Out, E, R, C> {
  readonly description: string
  /** MCP's display name; a host without one shows the tool's machine name. */
  readonly title?: string
  /** Missing means the tool takes no input. */
  readonly input?: S
  readonly mutates: boolean
  readonly handler: (input: InputOf<S>, client: C) => Effect.Effect<Out, E, R>
  // Method syntax, so its parameter is bivariant: a tool that only ever fails (`Out` = never) still
  // fits a table of tools whose answers differ.
  render?(out: Out): ToolResult.ToolResult
}

/**
 * Any tool over client `C`, for tables that mix input and answer types. The handler's input and
 * `render`'s argument are contravariant, so no single concrete type admits every tool; `any` there
 * is sound because each tool's types were checked when `make` built it. Its error and services are
 * `unknown`: a face that needs them precisely is generic over its table and reads `Services<T>`.
 *
 * @example
 * ```ts
 * const table: Record<string, AnyTool<MyClient>> = { ping, spawn }
 * ```
 *
 * @since 0.1.0
 */
// `any`, not `unknown`: see the doc comment — the input and render positions are contravariant.
export type AnyTool<C = never> = Tool<any, any, unknown, unknown, C>

/**
 * The services a tool's call needs: its handler's and its input schema's decoding services.
 *
 * @example
 * ```ts
 * type R = Services<typeof table[keyof typeof table]>
 * ```
 *
 * @since 0.1.0
 */
export type Services<T> = T extends Tool<infer S, infer _Out, infer _E, infer R, infer _C>
  ? R | (S extends Schema.Top ? S["DecodingServices"] : never)
  : never

/**
 * Build a tool, inferring the handler's input from the input schema's `Type` (or `void` without
 * one) and the client type from the handler's annotation, so the handler is typed without casts.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Tools from "effect-surface/tools"
 *
 * const spawn = Tools.make({
 *   description: "Start a job and wait for it",
 *   input: Schema.Struct({ cmd: Schema.String }),
 *   mutates: true,
 *   handler: ({ cmd }, client: JobsClient) => client.spawnAndWait(cmd)
 * })
 * ```
 *
 * @since 0.1.0
 */
export function make<S extends ToolInputSchema, Out, E = never, R = never, C = unknown>(
  tool: Tool<S, Out, E, R, C> & { readonly input: S }
): Tool<S, Out, E, R, C>
export function make<Out, E = never, R = never, C = unknown>(
  tool: Tool<undefined, Out, E, R, C> & { readonly input?: undefined }
): Tool<undefined, Out, E, R, C>
export function make<S extends ToolInputSchema | undefined, Out, E, R, C>(
  tool: Tool<S, Out, E, R, C>
): Tool<S, Out, E, R, C> {
  return tool
}

/**
 * Call a tool with already-decoded input and frame the outcome: the path every face shares after
 * decoding. The result never fails; a refusal, defect or interruption is an `isError` result.
 *
 * @example
 * ```ts
 * const result = yield* Tools.call(spawn, { cmd: "make" }, client)
 * ```
 *
 * @since 0.1.0
 */
export const call = <S extends ToolInputSchema | undefined, Out, E, R, C>(
  tool: Tool<S, Out, E, R, C>,
  input: InputOf<S>,
  client: C
): Effect.Effect<ToolResult.ToolResult, never, R> => ToolResult.frame(tool.handler(input, client), tool.render)
