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
import { Effect, Result, Schema } from "effect"
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
 * import type { GuardFile } from "effect-surface/serve"
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
 * One grant: `true` (the tool as the upstream offers it), `false` (denied, as if unnamed), or the
 * tool with terms: restrictions on some of its arguments, and where keys its locked schema does not
 * name may pass (`"allow-extra-keys"`: `true` anywhere, or the arguments inside which they may;
 * by default such a key is refused, since an upstream may read an alias of a restricted argument).
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/serve"
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
  readonly "allow-extra-keys"?: boolean | ReadonlyArray<string> | undefined
}

/**
 * A granted tool's terms, every one spelled out: its restrictions, and where keys its locked schema
 * does not name may pass (`false`: nowhere).
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/serve"
 * const terms: GuardFile.Terms = { restrict: { a: { maximum: 10 } }, allowExtraKeys: false }
 * ```
 *
 * @since 0.1.0
 */
export interface Terms {
  readonly restrict: { readonly [argument: string]: Restriction }
  readonly allowExtraKeys: boolean | ReadonlyArray<string>
}

/**
 * A decoded guard file, its paths resolved against the file's own directory.
 *
 * @example
 * ```ts
 * import type { GuardFile } from "effect-surface/serve"
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
const Grant = Schema.Union([
  Schema.Boolean,
  Schema.Struct({
    restrict: Schema.optionalKey(Schema.Record(Schema.String, Restriction)),
    "allow-extra-keys": Schema.optionalKey(Schema.Union([Schema.Boolean, Schema.NonEmptyArray(Schema.NonEmptyString)]))
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
 * import { GuardFile } from "effect-surface/serve"
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

// Only a pattern that compiles can restrict anything; a broken one is the file's mistake.
const badPattern = (grants: GuardFile["grants"]): InputError | undefined => {
  for (const [tool, grant] of Object.entries(grants)) {
    if (typeof grant === "boolean") continue
    for (const [argument, restriction] of Object.entries(grant.restrict ?? {})) {
      if (restriction.pattern === undefined) continue
      const compiled = Result.try(() => new RegExp(restriction.pattern ?? "", "u"))
      if (Result.isFailure(compiled)) {
        const path = ["grants", tool, "restrict", argument, "pattern"]
        return new InputError({ issues: [{ path, message: `not a regular expression: ${String(compiled.failure)}` }] })
      }
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
 * import { GuardFile } from "effect-surface/serve"
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
  const pattern = badPattern(file.grants)
  if (pattern !== undefined) return refuse(pattern.message)
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
 * import { GuardFile } from "effect-surface/serve"
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
 * import { GuardFile } from "effect-surface/serve"
 * declare const file: GuardFile.GuardFile
 * GuardFile.grantOf(file, "echo") // { restrict: {}, allowExtraKeys: false } when "echo": true; undefined when false or absent
 * ```
 *
 * @since 0.1.0
 */
export const grantOf = (file: GuardFile, tool: string): Terms | undefined => {
  const grant = Object.hasOwn(file.grants, tool) ? file.grants[tool] : undefined
  if (grant === undefined || grant === false) return undefined
  return grant === true ? { restrict: {}, allowExtraKeys: false } : {
    restrict: grant.restrict ?? {},
    allowExtraKeys: grant["allow-extra-keys"] ?? false
  }
}
