/**
 * The checks every answer from the editor, and every update to it, passes through.
 *
 * The SDK validates nothing it receives in answer to its own requests and nothing it sends, so
 * whatever an editor answers would reach a turn unchanged (`{ content: 42 }` for a file read).
 * These checks are built once, at start, from the JSON Schema the installed SDK ships, through the
 * core's JSON Schema decoder; a method the SDK adds is checked the day its schema does. They are
 * lenient exactly where the SDK's own parser is (`_meta`, fields it defaults on error, items it
 * skips) and what the SDK would drop is dropped, so an answer the SDK accepts is never refused and
 * the value a turn sees is the one its types describe. There is no switch that turns them off.
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type { InvalidJsonSchema } from "../core/InputError.ts"
import { compileJsonSchema, type JsonDecoder } from "../core/JsonSchemaDecoder.ts"
import { InvalidUpdate, MalformedAnswer, SchemaMissing } from "./AcpError.ts"
import { salvage } from "./internal/salvage.ts"
import * as Doc from "./internal/schemaDocument.ts"

/**
 * The checks for one schema document.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpChecks } from "effect-surface/acp"
 *
 * const checks: AcpChecks.Checks = AcpChecks.make(AcpChecks.shippedSchema())
 * checks.missing("fs/read_text_file") // undefined: answers to it can be checked
 * Effect.runSync(Effect.flip(checks.answer("fs/read_text_file", { content: 42 }))) // MalformedAnswer
 * ```
 *
 * @since 0.1.0
 */
export interface Checks {
  /** Why answers to `method` cannot be checked, or `undefined` when they can: asked before sending. */
  readonly missing: (method: string) => SchemaMissing | undefined
  /** The editor's answer to `method`, as its type describes it, or the issues that stop it. */
  readonly answer: (method: string, answer: unknown) => Effect.Effect<unknown, MalformedAnswer | SchemaMissing>
  /** A whole `session/update` notification (`{ sessionId, update }`) before it is sent. */
  readonly update: (notification: unknown) => Effect.Effect<void, InvalidUpdate | SchemaMissing>
}

interface Pair {
  readonly strict: JsonDecoder
  readonly lenient: JsonDecoder
}

type Built = Result.Result<Pair, string>

const UPDATE = "session/update"

const reasonOf = (error: InvalidJsonSchema): string => `its schema could not be read: ${error.message}`

const compilePair = (
  strictDefs: Readonly<Record<string, unknown>>,
  lenientDefs: Readonly<Record<string, unknown>>,
  name: string
): Built => {
  const strict = compileJsonSchema(Doc.documentFor(strictDefs, name))
  if (Result.isFailure(strict)) return Result.fail(reasonOf(strict.failure))
  const lenient = compileJsonSchema(Doc.documentFor(lenientDefs, name))
  if (Result.isFailure(lenient)) return Result.fail(reasonOf(lenient.failure))
  return Result.succeed({ strict: strict.success, lenient: lenient.success })
}

// Strict first (the common case, one walk); on failure the lenient check says whether the SDK would
// take it, and if so what the SDK would drop is dropped.
const run = <E>(
  pair: Pair,
  value: unknown,
  refuse: (issues: MalformedAnswer["issues"]) => E
): Effect.Effect<unknown, E> =>
  Effect.catch(pair.strict(value), () =>
    Effect.matchEffect(pair.lenient(value), {
      onFailure: (error) => Effect.fail(refuse(error.issues)),
      onSuccess: () => Effect.map(salvage(pair.strict, value), (kept) => kept === undefined ? value : kept)
    }))

const build = (document: unknown): Checks => {
  const defs = Doc.definitions(document)
  if (defs === undefined) {
    const reason = "the schema document has no $defs"
    return {
      missing: (method) => new SchemaMissing({ method, reason }),
      answer: (method) => Effect.fail(new SchemaMissing({ method, reason })),
      update: () => Effect.fail(new SchemaMissing({ method: UPDATE, reason }))
    }
  }
  const lenientDefs = Doc.loosen(defs)
  const answers = new Map<string, Built>()
  for (const method of Doc.answeredMethods(defs)) {
    const name = Doc.definitionFor(defs, method, "Response")
    if (name !== undefined) answers.set(method, compilePair(defs, lenientDefs, name))
  }
  const notification = Doc.definitionFor(defs, UPDATE, "Notification")
  const updates: Built = notification === undefined
    ? Result.fail(`it has no ${UPDATE} notification`)
    : compilePair(defs, lenientDefs, notification)

  const missing = (method: string): SchemaMissing | undefined => {
    const built = answers.get(method)
    if (built === undefined) return new SchemaMissing({ method, reason: "it has no answer schema for this method" })
    return Result.isFailure(built) ? new SchemaMissing({ method, reason: built.failure }) : undefined
  }
  return {
    missing,
    answer: (method, answer) => {
      const built = answers.get(method)
      if (built === undefined || Result.isFailure(built)) return Effect.fail(missing(method)!)
      return run(built.success, answer, (issues) => new MalformedAnswer({ method, issues }))
    },
    update: (value) =>
      Result.isFailure(updates)
        ? Effect.fail(new SchemaMissing({ method: UPDATE, reason: updates.failure }))
        : Effect.asVoid(run(updates.success, value, (issues) => new InvalidUpdate({ issues })))
  }
}

// Building walks the whole document; a document is immutable once loaded, so once each is enough.
const built = new WeakMap<object, Checks>()

/**
 * The checks for `document`, a JSON Schema in the SDK's shape (`$defs` whose answers carry
 * `x-side: "client"` and `x-method`). Built once per document value; a method the document has no
 * answer for, or whose answer schema cannot be read, reports `SchemaMissing`.
 *
 * @example
 * ```ts
 * import { AcpChecks } from "effect-surface/acp"
 * const checks = AcpChecks.make({ $defs: {} })
 * checks.missing("fs/read_text_file") // SchemaMissing: it has no answer schema for this method
 * ```
 *
 * @since 0.1.0
 */
export const make = (document: unknown): Checks => {
  if (typeof document !== "object" || document === null) return build(document)
  const known = built.get(document)
  if (known !== undefined) return known
  const checks = build(document)
  built.set(document, checks)
  return checks
}

const require = createRequire(import.meta.url)

/**
 * The JSON Schema the installed `@agentclientprotocol/sdk` ships for protocol v1.
 *
 * @example
 * ```ts
 * import { AcpChecks } from "effect-surface/acp"
 * const document = AcpChecks.shippedSchema() // { $schema, $defs: { ReadTextFileResponse, … } }
 * ```
 *
 * @since 0.1.0
 */
export const shippedSchema = (): unknown => require("@agentclientprotocol/sdk/schema/v1/schema.json")

/**
 * The checks as a service, so a test can build them from another document.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpChecks } from "effect-surface/acp"
 *
 * const program = Effect.gen(function*() {
 *   const checks = yield* AcpChecks.AcpChecks
 *   return checks.missing("terminal/create")
 * }).pipe(Effect.provide(AcpChecks.layer))
 * ```
 *
 * @since 0.1.0
 */
export class AcpChecks extends Context.Service<AcpChecks, Checks>()("effect-surface/AcpChecks") {}

/**
 * The checks built from the schema the installed SDK ships.
 *
 * @example
 * ```ts
 * import { AcpChecks } from "effect-surface/acp"
 * const checks = AcpChecks.layer
 * ```
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<AcpChecks> = Layer.sync(AcpChecks, () => make(shippedSchema()))

/**
 * The checks built from another schema document: an older or newer SDK's, or one a test trims.
 *
 * @example
 * ```ts
 * import { AcpChecks } from "effect-surface/acp"
 * const none = AcpChecks.layerFrom({ $defs: {} }) // every method: SchemaMissing
 * ```
 *
 * @since 0.1.0
 */
export const layerFrom = (document: unknown): Layer.Layer<AcpChecks> => Layer.sync(AcpChecks, () => make(document))
