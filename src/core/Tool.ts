/**
 * The tool record: the one shape of a hand-authored, call-shaped capability, whatever face serves it.
 *
 * An app's hand-authored tools are one table. The MCP face serves it, the CLI face parses argv
 * against it and the client toolset projects it, so the record belongs to the core every face
 * stands on, and names no protocol. `effect-surface/tools` is its public door.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type { JsonObject } from "./Json.ts"
import * as ToolResult from "./ToolResult.ts"

/**
 * A tool input given as a raw JSON Schema rather than an Effect Schema: advertised verbatim and
 * checked by the reverse decoder, for tools whose schema comes from elsewhere (a plain tool object,
 * a proxied server). The handler receives the checked JSON as `unknown`.
 *
 * @example
 * ```ts
 * import * as Tools from "effect-surface/tools"
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
  /**
   * Who checks a call's arguments: the face, before the handler runs (the default), or the handler
   * itself — for a proxy whose every refusal must go through its own path (and its audit).
   */
  readonly checkedBy: "face" | "handler"
}

/**
 * Declare a tool input by its raw JSON Schema (an object schema). With `checkedBy: "handler"` the
 * schema is only advertised: the handler receives the arguments as sent and checks them itself.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Tools from "effect-surface/tools"
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
export const jsonSchema = (
  schema: JsonObject,
  options?: { readonly trustPatterns?: boolean; readonly checkedBy?: "face" | "handler" }
): JsonSchemaInput => ({
  _tag: "JsonSchemaInput",
  schema,
  trustPatterns: options?.trustPatterns === true,
  checkedBy: options?.checkedBy ?? "face"
})

/**
 * What a tool's input may be declared with: any Effect Schema (the face decodes the wire input
 * through its JSON codec; a scalar, array or union input is advertised wrapped under `value`), or a
 * raw JSON Schema (`jsonSchema`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type * as Tools from "effect-surface/tools"
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
 * import type * as Tools from "effect-surface/tools"
 * type In = Tools.InputOf<Schema.Struct<{ id: typeof Schema.String }>> // { readonly id: string }
 * type None = Tools.InputOf<undefined> // void
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
 * import type * as Tools from "effect-surface/tools"
 * const ping: Tools.Tool<undefined, string, never, never, unknown> = {
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
  /** Listed as the tool's `_meta`, verbatim: what a face forwards about a tool it does not own. */
  readonly meta?: JsonObject
  /**
   * Listed as the tool's `annotations`, verbatim, in place of those `mutates` implies: a face
   * forwarding a tool it does not own passes on every hint its owner gave.
   */
  readonly annotations?: JsonObject
  /** Missing means the tool takes no input. */
  readonly input?: S
  readonly mutates: boolean
  /**
   * Whether a call may carry on as a task, for a caller that can follow one (MCP 2026-07-28's tasks
   * extension): `optional` once it has run a while (or at `Caller.beginTask`), `required` always —
   * a caller that cannot follow a task is then refused. Missing: never a task.
   */
  readonly task?: "optional" | "required"
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
 * import { Effect } from "effect"
 * import * as Tools from "effect-surface/tools"
 *
 * interface Jobs { readonly run: (cmd: string) => Effect.Effect<string> }
 * const table: Record<string, Tools.AnyTool<Jobs>> = {
 *   ping: Tools.make({ description: "Answer pong", mutates: false, handler: () => Effect.succeed("pong") }),
 *   run: Tools.make({ description: "Run a job", input: Tools.jsonSchema({ type: "object" }), mutates: true, handler: (_, jobs: Jobs) => jobs.run("make") })
 * }
 * ```
 *
 * @since 0.1.0
 */
export type AnyTool<C = never> = Tool<any, any, unknown, unknown, C> // `any`: the input and render positions are contravariant

/**
 * The services a tool's call needs: its handler's and its input schema's decoding services.
 *
 * @example
 * ```ts
 * import { Context, Effect } from "effect"
 * import * as Tools from "effect-surface/tools"
 *
 * class Clock extends Context.Service<Clock, { readonly now: Effect.Effect<number> }>()("Clock") {}
 * const now = Tools.make({ description: "The time", mutates: false, handler: () => Clock.use((clock) => clock.now) })
 * type R = Tools.Services<typeof now> // Clock
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
 * interface JobsClient { readonly spawnAndWait: (cmd: string) => Effect.Effect<number> }
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
 * import { Effect, Schema } from "effect"
 * import * as Tools from "effect-surface/tools"
 *
 * const shout = Tools.make({ description: "Shout", input: Schema.Struct({ word: Schema.String }), mutates: false, handler: ({ word }) => Effect.succeed(word.toUpperCase()) })
 * const result = Tools.call(shout, { word: "hi" }, undefined) // Effect<ToolResult>, its text '{"value":"HI"}'
 * ```
 *
 * @since 0.1.0
 */
export const call = <S extends ToolInputSchema | undefined, Out, E, R, C>(
  tool: Tool<S, Out, E, R, C>,
  input: InputOf<S>,
  client: C
): Effect.Effect<ToolResult.ToolResult, never, R> => callThrough(tool, input, (handle) => handle(client))

/**
 * `call`, with the client reached through `through` — a pool lease, a lookup that can fail — whose
 * own failures (a dropped link) are framed like the handler's.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Tools from "effect-surface/tools"
 *
 * const count = Tools.make({ description: "Count", mutates: false, handler: (_: void, items: ReadonlyArray<string>) => Effect.succeed(items.length) })
 * const result = Tools.callThrough(count, undefined, (handle) => Effect.flatMap(Effect.succeed(["a", "b"]), handle))
 * ```
 *
 * @since 0.1.0
 */
export const callThrough = <S extends ToolInputSchema | undefined, Out, E, R, C, E2, R2>(
  tool: Tool<S, Out, E, R, C>,
  input: InputOf<S>,
  through: (handle: (client: C) => Effect.Effect<Out, E, R>) => Effect.Effect<Out, E2, R2>
): Effect.Effect<ToolResult.ToolResult, never, R2> =>
  ToolResult.frame(through((client) => tool.handler(input, client)), tool.render)
