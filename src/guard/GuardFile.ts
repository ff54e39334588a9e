/**
 * The guard file: which upstream MCP server a guard stands in front of, what of it is granted, and
 * where its lock, its audit and the audit's key live.
 *
 * It is a JSON file a person writes and commits, so it is decoded with a schema and every mistake is
 * refused with a sentence naming the field (`grants.get-sum.restrict.a.maximum`): a typo in a
 * restriction must not silently grant more than was meant. Paths in it are relative to the file.
 * Reading it loads nothing of MCP, so a command line can type its flags from it for `--help`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { InputError } from "../core/InputError.ts"
import { toInputError } from "../core/internal/issues.ts"
import * as McpConfig from "../client/Config.ts"

/**
 * What a restriction may narrow on one argument: the values it may take, its bounds, its length,
 * a pattern it must match. Each only narrows what the upstream's own schema allows.
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/guard"
 * const small: GuardFile.Restriction = { minimum: 0, maximum: 10 }
 * const named: GuardFile.Restriction = { enum: ["tea", "cake"], maxLength: 4, pattern: "^[a-z]+$" }
 * ```
 *
 * @since 0.1.0
 */
export interface Restriction {
  readonly enum?: ReadonlyArray<string | number | boolean> | undefined
  readonly minimum?: number | undefined
  readonly maximum?: number | undefined
  readonly maxLength?: number | undefined
  readonly pattern?: string | undefined
}

/**
 * What a request guard asks of one argument: that it is one of `enum`, at least `minimum`, at most
 * `maximum`, a string matching `pattern` — every key given, and the argument given — or, with
 * `present: false`, that it is not given at all.
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/guard"
 * const large: GuardFile.Matcher = { minimum: 100 }
 * const crypto: GuardFile.Matcher = { enum: ["BTC", "ETH"] }
 * const unexplained: GuardFile.Matcher = { present: false }
 * ```
 *
 * @since 0.1.0
 */
export interface Matcher {
  readonly enum?: ReadonlyArray<string | number | boolean | null> | undefined
  readonly minimum?: number | undefined
  readonly maximum?: number | undefined
  readonly pattern?: string | undefined
  readonly present?: boolean | undefined
}

/**
 * A request guard (`"fail-when"`): a condition over a call's arguments under which the guard
 * refuses it, though each argument alone is within its restrictions. It holds when every argument
 * it names matches; `reason` is the sentence the caller and the audit are given (without one, the
 * condition itself is told).
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/guard"
 * const bigCrypto: GuardFile.Condition = {
 *   match: { currency: { enum: ["BTC"] }, amount: { minimum: 100 } },
 *   reason: "a bitcoin transfer of 100 or more needs a person"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Condition {
  readonly match: { readonly [argument: string]: Matcher }
  readonly reason?: string | undefined
}

/**
 * One grant: `true` (the tool as the upstream offers it), `false` (denied, as if unnamed), or the
 * tool with terms: restrictions on some of its arguments, request guards (`"fail-when"`) over them
 * together, and where keys its locked schema does not name may pass (`"allow-extra-keys"`: `true`
 * anywhere, or the arguments inside which they may; by default such a key is refused, since an
 * upstream may read an alias of a restricted argument).
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/guard"
 * const grants: Record<string, GuardFile.Grant> = {
 *   echo: true,
 *   "get-env": false,
 *   "get-sum": { restrict: { a: { maximum: 10 } } },
 *   annotate: { "allow-extra-keys": ["metadata"] }
 * }
 * ```
 *
 * @since 0.1.0
 */
export type Grant = boolean | {
  readonly restrict?: { readonly [argument: string]: Restriction } | undefined
  readonly "fail-when"?: ReadonlyArray<Condition> | undefined
  readonly "allow-extra-keys"?: boolean | ReadonlyArray<string> | undefined
  /** Served over HTTP behind a resource server, the tool is shown only to tokens granted this scope. */
  readonly scope?: string | undefined
}

/**
 * A granted tool's terms, every one spelled out: its restrictions, its request guards, and where
 * keys its locked schema does not name may pass (`false`: nowhere).
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/guard"
 * const terms: GuardFile.Terms = { restrict: { a: { maximum: 10 } }, failWhen: [], allowExtraKeys: false }
 * ```
 *
 * @since 0.1.0
 */
export interface Terms {
  readonly restrict: { readonly [argument: string]: Restriction }
  readonly failWhen: ReadonlyArray<Condition>
  readonly allowExtraKeys: boolean | ReadonlyArray<string>
}

/**
 * A decoded guard file, its paths resolved against the file's own directory.
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/guard"
 * const file: GuardFile.GuardFile = {
 *   upstream: { name: "everything", type: "stdio", command: "node", args: ["server.js", "stdio"] },
 *   grants: { echo: true },
 *   lock: "/repo/guard.lock.json",
 *   audit: "/repo/audit.jsonl"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface GuardFile {
  /** A client-toolset server entry (stdio, streamable-http or sse), checked as the toolset checks it. */
  readonly upstream: McpConfig.Stdio | McpConfig.StreamableHttp | McpConfig.Sse
  readonly grants: { readonly [tool: string]: Grant }
  readonly lock: string
  /** JSON lines, or SQLite when the path ends in `.db`. */
  readonly audit: string
  /**
   * The file holding the key the audit's argument digests are made with (it must exist, readable
   * by its owner alone); without it, `<audit>.key`, made when missing. A path, not the key: the
   * guard file is committed.
   */
  readonly auditKey?: string | undefined
}

const Finite = Schema.Finite
const Restriction = Schema.Struct({
  enum: Schema.optionalKey(Schema.NonEmptyArray(Schema.Union([Schema.String, Finite, Schema.Boolean]))),
  minimum: Schema.optionalKey(Finite),
  maximum: Schema.optionalKey(Finite),
  maxLength: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  pattern: Schema.optionalKey(Schema.String)
})
const Matcher = Schema.Struct({
  enum: Schema.optionalKey(Schema.NonEmptyArray(Schema.Union([Schema.String, Finite, Schema.Boolean, Schema.Null]))),
  minimum: Schema.optionalKey(Finite),
  maximum: Schema.optionalKey(Finite),
  pattern: Schema.optionalKey(Schema.String),
  present: Schema.optionalKey(Schema.Boolean)
})
const Condition = Schema.Struct({
  match: Schema.Record(Schema.String, Matcher),
  reason: Schema.optionalKey(Schema.NonEmptyString)
})
const Grant = Schema.Union([
  Schema.Boolean,
  Schema.Struct({
    restrict: Schema.optionalKey(Schema.Record(Schema.String, Restriction)),
    "fail-when": Schema.optionalKey(Schema.Array(Condition)),
    "allow-extra-keys": Schema.optionalKey(Schema.Union([Schema.Boolean, Schema.NonEmptyArray(Schema.NonEmptyString)])),
    scope: Schema.optionalKey(Schema.NonEmptyString)
  })
])
// The entry's own fields are the toolset's to check (`McpConfig.wire`); here only what JSON can say.
const Upstream = Schema.StructWithRest(
  Schema.Struct({ name: Schema.NonEmptyString, type: Schema.Literals(["stdio", "streamable-http", "sse"]) }),
  [Schema.Record(Schema.String, Schema.Json)]
)
const FileSchema = Schema.Struct({
  upstream: Upstream,
  grants: Schema.Record(Schema.String, Grant),
  lock: Schema.NonEmptyString,
  audit: Schema.NonEmptyString,
  auditKey: Schema.optionalKey(Schema.NonEmptyString)
})
// A key the schema does not know is refused, not ignored: `restirct` must not grant the tool whole.
const decodeFile = Schema.decodeUnknownResult(FileSchema, { errors: "all", onExcessProperty: "error" })

/**
 * A guard file that cannot be used: unreadable, not JSON, or a field that is wrong (named in the
 * message, as `grants.get-sum.restrict.a.maximum`).
 *
 * @example
 * ```ts
 * import { GuardFile } from "effect-surface/guard"
 * new GuardFile.GuardFileError({ path: "guard.json", reason: 'value at "lock": missing required field' }).message
 * // 'guard file guard.json cannot be used: value at "lock": missing required field'
 * ```
 *
 * @since 0.1.0
 */
export class GuardFileError
  extends Schema.TaggedError<GuardFileError>()("GuardFileError", { path: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `guard file ${this.path} cannot be used: ${this.reason}`
  }
}

const issue = (path: ReadonlyArray<string | number>, message: string) => new InputError({ issues: [{ path, message }] })

// Only a pattern that compiles can restrict anything; a broken one is the file's mistake.
const badPattern = (path: ReadonlyArray<string | number>, pattern: string | undefined): InputError | undefined => {
  if (pattern === undefined) return undefined
  const compiled = Result.try(() => new RegExp(pattern, "u"))
  return Result.isFailure(compiled) ? issue(path, `not a regular expression: ${String(compiled.failure)}`) : undefined
}

// A condition that names nothing would refuse every call, and one asking an absent argument to
// have a value can never hold: both are mistakes, not grants.
const badCondition = (path: ReadonlyArray<string | number>, condition: Condition): InputError | undefined => {
  const matchers = Object.entries(condition.match)
  if (matchers.length === 0) return issue([...path, "match"], "names no argument: a condition must name at least one")
  for (const [argument, matcher] of matchers) {
    const at = [...path, "match", argument]
    if (matcher.present === false && Object.keys(matcher).length > 1)
      return issue(at, "present: false holds only when the argument is not given, so it takes no other key")
    const pattern = badPattern([...at, "pattern"], matcher.pattern)
    if (pattern !== undefined) return pattern
  }
  return undefined
}

const badGrant = (grants: GuardFile["grants"]): InputError | undefined => {
  for (const [tool, grant] of Object.entries(grants)) {
    if (typeof grant === "boolean") continue
    for (const [argument, restriction] of Object.entries(grant.restrict ?? {})) {
      const bad = badPattern(["grants", tool, "restrict", argument, "pattern"], restriction.pattern)
      if (bad !== undefined) return bad
    }
    for (const [i, condition] of (grant["fail-when"] ?? []).entries()) {
      const bad = badCondition(["grants", tool, "fail-when", i], condition)
      if (bad !== undefined) return bad
    }
  }
  return undefined
}

/**
 * Decode a guard file's JSON, resolving `lock`, `audit` and `auditKey` against the file's directory.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { GuardFile } from "effect-surface/guard"
 * const file = GuardFile.decode({
 *   upstream: { name: "everything", type: "stdio", command: "node", args: ["server.js", "stdio"] },
 *   grants: { echo: true },
 *   lock: "guard.lock.json",
 *   audit: "audit.jsonl"
 * }, { path: "/repo/guard.json" }) // lock: "/repo/guard.lock.json"
 * ```
 *
 * @since 0.1.0
 */
export const decode = (json: unknown, at: { readonly path: string }): Effect.Effect<GuardFile, GuardFileError> => {
  const refuse = (reason: string) => Effect.fail(new GuardFileError({ path: at.path, reason }))
  const decoded = decodeFile(json)
  if (Result.isFailure(decoded)) return refuse(toInputError(decoded.failure.issue, []).message)
  const file = decoded.success
  const bad = badGrant(file.grants)
  if (bad !== undefined) return refuse(bad.message)
  const directory = Path.dirname(Path.resolve(at.path))
  return McpConfig.wire([file.upstream], {}).pipe(
    Effect.mapError((refused) => new GuardFileError({ path: at.path, reason: `upstream: ${refused.reason}` })),
    Effect.flatMap(({ servers }) => {
      const upstream = servers[0]?.config
      return upstream !== undefined &&
          (upstream.type === "stdio" || upstream.type === "streamable-http" || upstream.type === "sse")
        ? Effect.succeed({
          ...file,
          upstream,
          lock: Path.resolve(directory, file.lock),
          audit: Path.resolve(directory, file.audit),
          ...(file.auditKey === undefined ? {} : { auditKey: Path.resolve(directory, file.auditKey) })
        })
        : refuse("upstream: must be a stdio, streamable-http or sse server entry")
    })
  )
}

/**
 * Read and decode the guard file at `path`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { GuardFile } from "effect-surface/guard"
 * const program = Effect.map(GuardFile.read("guard.json"), (file) => Object.keys(file.grants))
 * ```
 *
 * @since 0.1.0
 */
export const read = Effect.fn("GuardFile.read")(function*(path: string) {
  const text = yield* Effect.tryPromise({
    try: () => Fs.readFile(path, "utf8"),
    catch: (cause) =>
      new GuardFileError({
        path,
        reason: `it cannot be read (${cause instanceof Error ? cause.message : String(cause)})`
      })
  })
  const json = yield* Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) =>
      new GuardFileError({ path, reason: `it is not JSON (${cause instanceof Error ? cause.message : String(cause)})` })
  })
  return yield* decode(json, { path })
})

/**
 * The terms a tool is granted on: spelled out when granted (`true` is no restriction, no extra key),
 * `undefined` when denied or not named.
 *
 * @example
 * ```ts
 * import { GuardFile } from "effect-surface/guard"
 * declare const file: GuardFile.GuardFile
 * GuardFile.grantOf(file, "echo") // { restrict: {}, failWhen: [], allowExtraKeys: false } when "echo": true; undefined when false or absent
 * ```
 *
 * @since 0.1.0
 */
export const grantOf = (file: GuardFile, tool: string): Terms | undefined => {
  const grant = Object.hasOwn(file.grants, tool) ? file.grants[tool] : undefined
  if (grant === undefined || grant === false) return undefined
  return grant === true ? { restrict: {}, failWhen: [], allowExtraKeys: false } : {
    restrict: grant.restrict ?? {},
    failWhen: grant["fail-when"] ?? [],
    allowExtraKeys: grant["allow-extra-keys"] ?? false
  }
}
