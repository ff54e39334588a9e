/**
 * The typed refusal a tool fails with, and the one way every failure is worded.
 *
 * A tool can fail for a reason its caller should act on (a refusal with machine-readable detail) or
 * for a reason nobody planned (a defect, a dropped link, an interruption). The first is a value in
 * the Effect error channel, `ToolFailure<D>`, so a handler raises it with `yield*` and a caller
 * catches it by `_tag` — never an `instanceof` guess, which breaks the moment two copies of this
 * package meet. The second still owes the model one honest sentence, and `messageOf` is where
 * that sentence is derived, so a face reporting a failure and a handler folding one into its own
 * message word the same error the same way.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import * as Json from "./Json.ts"

/**
 * A refusal whose reason is machine-readable: `message` reaches the model as prose, `detail` reaches
 * the caller as the result's structured arm (normalized like any success). Generic in its detail, so
 * a consumer's own refusal union survives to the place it is asserted on.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolFailure } from "effect-surface/tools"
 *
 * const setDone = Effect.gen(function*() {
 *   return yield* new ToolFailure({
 *     message: "set_done was refused: 2 children still open",
 *     detail: { kind: "blocked" as const, blocking: ["a", "b"] }
 *   })
 * })
 * // recover by tag: Effect.catchTag(setDone, "ToolFailure", (f) => ...)
 * ```
 *
 * @since 0.1.0
 */
export class ToolFailure<out D = unknown> extends Data.TaggedError("ToolFailure")<{
  readonly message: string
  readonly detail: D
}> {}

/**
 * Whether a value is a `ToolFailure`, read off its `_tag` so a copy raised by another instance of
 * this package (a second install, a bundled dependency) is still recognised.
 *
 * @example
 * ```ts
 * import { isToolFailure, ToolFailure } from "effect-surface/tools"
 * isToolFailure(new ToolFailure({ message: "no", detail: 1 })) // true
 * isToolFailure({ _tag: "ToolFailure" }) // false: not an Error with a detail
 * ```
 *
 * @since 0.1.0
 */
export const is = (u: unknown): u is ToolFailure<unknown> =>
  u instanceof Error && Predicate.isTagged(u, "ToolFailure") && "detail" in u && typeof u.message === "string"

/**
 * Build a refusal from its two parts, for call sites that read better positionally.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { refuse } from "effect-surface/tools"
 * Effect.fail(refuse("not found", { key: "a" }))
 * ```
 *
 * @since 0.1.0
 */
export const make = <const D>(message: string, detail: D): ToolFailure<D> => new ToolFailure({ message, detail })

// Properties every Error carries that say nothing about *which* failure this is.
const incidental = new Set(["_tag", "name", "message", "stack", "cause"])

// A tag's fields can be large (a whole record); the sentence only needs to identify the failure.
const brief = (text: string): string => text.length > 200 ? `${text.slice(0, 199)}…` : text

// Cause chains can loop (an error whose cause is itself); three links is plenty for one sentence.
const maxDepth = 3

const identityOf = (error: Error): string => {
  if (Predicate.hasProperty(error, "_tag") && typeof error._tag === "string" && error._tag !== "") return error._tag
  return error.name !== "" ? error.name : "Error"
}

const fieldsOf = (error: Error): string | undefined => {
  const fields: Record<string, unknown> = {}
  let found = false
  for (const [key, value] of Object.entries(error)) {
    if (incidental.has(key)) continue
    fields[key] = value
    found = true
  }
  if (!found) return undefined
  return Result.match(Json.stringify(fields), {
    onSuccess: brief,
    // The identity alone still names the failure; unserializable fields are not worth a second error.
    onFailure: () => undefined
  })
}

const ofError = (error: Error, depth: number): string => {
  if (error.message !== "") return error.message
  const fields = fieldsOf(error)
  const head = fields === undefined ? identityOf(error) : `${identityOf(error)} ${fields}`
  const cause: unknown = error.cause
  return cause === undefined || depth >= maxDepth ? head : `${head}: ${describe(cause, depth + 1)}`
}

/**
 * The one failure a `Cause` is reported by: its first typed failure (the one the handler chose to
 * raise), else its first defect, else the cause itself — which then holds only interruptions (or
 * nothing at all).
 *
 * @example
 * ```ts
 * import { Cause } from "effect"
 * import { primaryOf } from "effect-surface/tools"
 * primaryOf(Cause.combine(Cause.die("boom"), Cause.fail("refused"))) // "refused"
 * ```
 *
 * @since 0.1.0
 */
export const primaryOf = (cause: Cause.Cause<unknown>): unknown => {
  for (const reason of cause.reasons) if (Cause.isFailReason(reason)) return reason.error
  for (const reason of cause.reasons) if (Cause.isDieReason(reason)) return reason.defect
  return cause
}

const ofCause = (cause: Cause.Cause<unknown>, depth: number): string => {
  const primary = primaryOf(cause)
  if (primary !== cause) return describe(primary, depth + 1)
  return Cause.hasInterrupts(cause) ? "interrupted" : "failed without a reason"
}

const describe = (error: unknown, depth: number): string => {
  if (Cause.isCause(error)) return ofCause(error, depth)
  if (error instanceof Error) return ofError(error, depth)
  switch (typeof error) {
    // JSON has no spelling for these; `JSON.stringify` would silently say nothing (or "null").
    case "undefined":
      return "undefined"
    case "function":
      return error.name === "" ? "an anonymous function" : `function ${error.name}`
    case "symbol":
      return error.toString()
  }
  return Result.match(Json.stringify(error), {
    onSuccess: (text) => text,
    onFailure: (unserializable) => unserializable.message
  })
}

/**
 * One sentence naming what broke, for any failure: an `Error`'s message; a tagged error with an
 * empty message as its `_tag` (and its fields, briefly); a non-Error value as its JSON; a value with
 * no JSON form as its constructor and the reason; a `Cause` as its first failure, else its first
 * defect, else `"interrupted"`.
 *
 * @example
 * ```ts
 * import { Cause, Data } from "effect"
 * import { messageOf } from "effect-surface/tools"
 *
 * class Busy extends Data.TaggedError("Busy")<{ readonly retryIn: number }> {}
 * messageOf(new Error("disk full")) // "disk full"
 * messageOf(new Busy({ retryIn: 5 })) // 'Busy {"retryIn":5}'
 * messageOf({ code: 7 }) // '{"code":7}'
 * messageOf(10n) // "a bigint has no JSON form (Do not know how to serialize a BigInt)"
 * messageOf(Cause.interrupt()) // "interrupted"
 * ```
 *
 * @since 0.1.0
 */
export const messageOf = (error: unknown): string => describe(error, 0)

/**
 * What the agent is told when a tool failed for a reason nobody declared (a throw, a bug, a
 * `Effect.die`): the defect's own text may name internals (a host, a query, a path), so it stays on
 * the server's log, and this sentence carries the `id` that log line also carries, so whoever is
 * handed the agent's answer finds the line.
 *
 * @example
 * ```ts
 * import { Unexpected } from "effect-surface/tools"
 * new Unexpected({ tool: "notes_add", id: "a1b2c3" }).message
 * // 'tool "notes_add" failed unexpectedly; the server's log has it as a1b2c3'
 * ```
 *
 * @since 0.1.0
 */
export class Unexpected extends Data.TaggedError("Unexpected")<{ readonly tool: string; readonly id: string }> {
  override get message(): string {
    return `tool "${this.tool}" failed unexpectedly; the server's log has it as ${this.id}`
  }
}

// Short enough to read aloud from an agent's answer; with the log line's time it names one line.
const newId = Effect.map(Random.nextIntBetween(0, 0xffffff), (n) => n.toString(16).padStart(6, "0"))

/**
 * Log a defect for the operator and answer the id the log line carries: at error level, `happened`
 * then `(failure <id>)`, with the whole cause (message and stack), annotated `failure` and `tool`.
 * The current span gets the id as `effect_surface.failure` (and `error: true`), and the log line as
 * an event holding the cause.
 *
 * @example
 * ```ts
 * import { Cause } from "effect"
 * import { logDefect } from "effect-surface/tools"
 * const id = logDefect("transfer", "the guard failed while deciding", Cause.die(new Error("a bug"))) // Effect<string>
 * ```
 *
 * @since 0.1.0
 */
export const logDefect = (tool: string, happened: string, cause: Cause.Cause<unknown>): Effect.Effect<string> =>
  Effect.flatMap(newId, (id) =>
    Effect.as(
      Effect.andThen(
        Effect.annotateCurrentSpan({ "error": true, "effect_surface.failure": id }),
        Effect.logError(`${happened} (failure ${id})`, cause).pipe(Effect.annotateLogs({ failure: id, tool }))
      ),
      id
    ))

/**
 * Report a tool's defect to the operator (`logDefect`) and answer what the agent is told: an
 * `Unexpected` naming the id the log line carries.
 *
 * @example
 * ```ts
 * import { Cause, Effect } from "effect"
 * import { reportDefect } from "effect-surface/tools"
 * const told = reportDefect("notes_add", Cause.die(new Error("database down"))) // Effect<Unexpected>
 * ```
 *
 * @since 0.1.0
 */
export const reportDefect = (tool: string, cause: Cause.Cause<unknown>): Effect.Effect<Unexpected> =>
  Effect.map(logDefect(tool, `tool "${tool}" failed unexpectedly`, cause), (id) => new Unexpected({ tool, id }))

/**
 * What a failed tool's caller is to be told, from the `Cause` it failed with: the cause itself when
 * it holds no defect, or a declared failure beside one (the defect is still logged); else an
 * `Unexpected` naming the id of the log line `reportDefect` wrote. The one place that rule lives,
 * for a face framing a cause and for `defectsReported`.
 *
 * @example
 * ```ts
 * import { Cause, Effect } from "effect"
 * import { toldOf } from "effect-surface/tools"
 * const told = toldOf("notes_add", Cause.die(new Error("database down"))) // Effect<Unexpected>, logged
 * ```
 *
 * @since 0.1.0
 */
export const toldOf = (tool: string, cause: Cause.Cause<unknown>): Effect.Effect<Cause.Cause<unknown> | Unexpected> =>
  Cause.hasDies(cause)
    ? Effect.map(reportDefect(tool, cause), (unexpected) => Cause.hasFails(cause) ? cause : unexpected)
    : Effect.succeed(cause)

/**
 * Run a tool's effect so that a defect in it is reported (`reportDefect`) and answered with an
 * `Unexpected` instead of its own text. Declared failures and interruptions pass as they are; a
 * defect beside a declared failure is still logged, and the declared failure is the answer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { defectsReported } from "effect-surface/tools"
 * const run = defectsReported("notes_add")(Effect.die(new Error("database down")))
 * // fails with Unexpected; the log line carries the same id, the cause and its stack
 * ```
 *
 * @since 0.1.0
 */
export const defectsReported =
  (tool: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unexpected, R> =>
    Effect.catchCause(effect, (cause) =>
      Effect.flatMap(
        toldOf(tool, cause),
        (told): Effect.Effect<never, E | Unexpected> =>
          Cause.isCause(told) ? Effect.failCause(cause) : Effect.fail(told)
      ))
