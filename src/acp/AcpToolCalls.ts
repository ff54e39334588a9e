/**
 * A tool call, as the person watching the editor sees it.
 *
 * An agent that does something on the person's behalf (reads a file, runs a command, calls an MCP
 * server's tool) says so: a `tool_call` update when it starts, `tool_call_update`s as it runs and
 * when it ends, completed or failed. `report` wraps any Effect in that sequence, and while it runs
 * the call's id is current, so a permission asked from inside it (`AcpApproval`) is shown on the
 * same entry. Reporting is best effort: an update the editor cannot take is logged, never the
 * reason the work fails.
 *
 * @since 0.1.0
 */
import type { ToolCallContent, ToolKind } from "@agentclientprotocol/sdk"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Json from "../core/Json.ts"
import { messageOf } from "../core/ToolFailure.ts"
import * as AcpSurface from "./AcpSurface.ts"
import type { Update } from "./Protocol.ts"

/**
 * What the editor shows for a call: a title, a kind (it picks the icon), and the input as given.
 *
 * @example
 * ```ts
 * import type { AcpToolCalls } from "effect-surface/acp"
 * const call: AcpToolCalls.Call = { title: "Read README.md", kind: "read", rawInput: { path: "/repo/README.md" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Call {
  readonly title: string
  readonly kind?: ToolKind | undefined
  readonly rawInput?: unknown
}

/**
 * The id of the tool call now running, when there is one: a permission asked inside it names it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpToolCalls } from "effect-surface/acp"
 * const id = Effect.service(AcpToolCalls.CurrentToolCall) // undefined outside a reported call
 * ```
 *
 * @since 0.1.0
 */
export const CurrentToolCall = Context.Reference<string | undefined>("effect-surface/AcpToolCalls/CurrentToolCall", {
  defaultValue: () => undefined
})

/**
 * A fresh tool call id.
 *
 * @example
 * ```ts
 * import { AcpToolCalls } from "effect-surface/acp"
 * const id = AcpToolCalls.nextId() // "call-3f2b…"
 * ```
 *
 * @since 0.1.0
 */
export const nextId = (): string => `call-${crypto.randomUUID()}`

const text = (value: string): ToolCallContent => ({ type: "content", content: { type: "text", text: value } })

// What a result looks like in the editor: text as is, anything else as its JSON.
const shown = (value: unknown): ReadonlyArray<ToolCallContent> => {
  if (value === undefined) return []
  if (typeof value === "string") return [text(value)]
  const serialized = Json.stringify(value)
  return serialized._tag === "Success" ? [text(serialized.success)] : []
}

const tell = (update: Update): Effect.Effect<void> =>
  AcpSurface.notify(update).pipe(
    Effect.catch((error) =>
      error._tag === "Cancelled" || error._tag === "NoSurface" ? Effect.void
        : Effect.logWarning(`ACP tool call update not sent: ${error.message}`)
    )
  )

/**
 * Run `effect` as a tool call the editor shows: `tool_call` (pending), then `in_progress`, then
 * `completed` with its result (`output` words it; default: text as is, else JSON) or `failed` with
 * one sentence naming the failure. The result and the failure are `effect`'s own, unchanged. Outside
 * an ACP turn nothing is sent and `effect` just runs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSurface, AcpToolCalls } from "effect-surface/acp"
 *
 * const read = (path: string) =>
 *   AcpToolCalls.report(
 *     { title: `Read ${path}`, kind: "read", rawInput: { path } },
 *     Effect.map(AcpSurface.request("fs/read_text_file", { path }), (answer) => answer.content)
 *   )
 * ```
 *
 * @since 0.1.0
 */
export const report = <A, E, R>(
  call: Call,
  effect: Effect.Effect<A, E, R>,
  options?: { readonly output?: ((value: A) => ReadonlyArray<ToolCallContent>) | undefined }
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    if (!(yield* AcpSurface.has)) return yield* effect
    const toolCallId = nextId()
    yield* tell({
      sessionUpdate: "tool_call",
      toolCallId,
      title: call.title,
      kind: call.kind ?? "other",
      status: "pending",
      ...(call.rawInput === undefined ? {} : { rawInput: call.rawInput })
    })
    yield* tell({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" })
    return yield* effect.pipe(
      Effect.provideService(CurrentToolCall, toolCallId),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? tell({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: "completed",
            content: [...(options?.output ?? shown)(exit.value)]
          })
          : tell({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: "failed",
            content: [text(Cause.hasInterruptsOnly(exit.cause) ? "stopped" : messageOf(exit.cause))]
          })
      )
    )
  })
