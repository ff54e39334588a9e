/**
 * The `requestState` a 2026-07-28 `input_required` result carries, signed so it cannot be forged.
 *
 * A call that asked its client something is parked until the client re-sends the request with the
 * answers and this state. The client holds the state, so everything in it is attacker-controlled
 * input: it names which parked call to continue, on which instance, at which round, for which
 * request, until when. An HMAC over all of it, with a key every instance shares, means a state that
 * was altered, made up, expired, presented for another request or replayed for an earlier round is
 * refused with a sentence before anything runs. It holds no answers and no arguments, so it stays a
 * few hundred bytes however much was asked.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Crypto from "node:crypto"

/**
 * What a state says, once verified.
 *
 * @example
 * ```ts
 * import type { McpRequestState } from "effect-surface/mcp"
 * const payload: McpRequestState.Payload = {
 *   call: "k3J9", instance: "a1b2", round: 1, target: "3n5Q", expires: 1_780_000_000_000, answers: undefined
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Payload {
  /** The parked call it continues. */
  readonly call: string
  /** The instance the call runs on. */
  readonly instance: string
  /** The round it answers: each `input_required` of one call is the next round. */
  readonly round: number
  /** A digest of the request it belongs to: its method, name or URI, and arguments. */
  readonly target: string
  /** When it stops being accepted, in epoch milliseconds. */
  readonly expires: number
  /**
   * The answers the call has had in its earlier rounds, carried (when small) so that a call whose
   * instance cannot be reached may be run again from its start, if running it again is harmless.
   */
  readonly answers: { readonly [key: string]: unknown } | undefined
}

const PayloadJson = Schema.fromJsonString(Schema.Struct({
  c: Schema.String,
  i: Schema.String,
  r: Schema.Int,
  t: Schema.String,
  x: Schema.Int,
  a: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}))

const decodePayload = Schema.decodeUnknownResult(PayloadJson)

/**
 * Why a state was refused: it does not parse, its signature does not hold, it has expired, or it
 * belongs to another request. Its message is the sentence the client is answered with.
 *
 * @example
 * ```ts
 * import { McpRequestState } from "effect-surface/mcp"
 * new McpRequestState.StateRefused({ reason: "expired" }).message
 * // "requestState refused: it has expired; call again without it"
 * ```
 *
 * @since 0.1.0
 */
export class StateRefused extends Data.TaggedError("StateRefused")<{
  readonly reason: "malformed" | "tampered" | "expired" | "foreign"
}> {
  override get message(): string {
    switch (this.reason) {
      case "malformed":
        return "requestState refused: it is not a state this server issued"
      case "tampered":
        return "requestState refused: its signature does not match (it was altered, or signed with another key)"
      case "expired":
        return "requestState refused: it has expired; call again without it"
      case "foreign":
        return "requestState refused: it belongs to another request (another method, name, URI or arguments)"
    }
  }
}

/**
 * Signs and verifies states with one key.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpRequestState } from "effect-surface/mcp"
 *
 * const codec = McpRequestState.make({ key: "a secret every instance shares" })
 * const roundTrip = Effect.gen(function*() {
 *   const state = yield* codec.sign({ call: "c1", instance: "i1", round: 1, target: "t", answers: undefined })
 *   return yield* codec.verify(state, "t") // the payload back, or StateRefused
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Codec {
  /** How long a state is accepted after it is issued. */
  readonly ttl: Duration.Duration
  /** What the calls waiting on their states may hold. */
  readonly limits: Limits
  /** Whether the key was given (and so may be shared), rather than made for this process. */
  readonly given: boolean
  readonly sign: (payload: Omit<Payload, "expires">) => Effect.Effect<string>
  /** The payload of a state issued for `target` and not expired; otherwise why not. */
  readonly verify: (state: string, target: string) => Effect.Effect<Payload, StateRefused>
}

/**
 * A codec's key and lifetime. Instances that continue each other's calls share one key: given here,
 * or read from `MCP_REQUEST_STATE_KEY` by the face; instances sharing a Redis agree on one there when
 * none is given; otherwise a key is made for this process (enough for one instance).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { McpRequestState } from "effect-surface/mcp"
 * const options: McpRequestState.Options = { key: Redacted.make(process.env["MCP_STATE_KEY"] ?? ""), ttl: "15 minutes" }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly key?: string | Redacted.Redacted<string> | undefined
  /** Default 10 minutes: long enough for a person to fill in a form. */
  readonly ttl?: Duration.Input | undefined
  /**
   * The most calls one caller may have waiting for answers at once (the verified subject behind a
   * resource server; otherwise every caller together). A call that would wait past it is ended
   * and answered with a sentence saying so. Default 64.
   *
   * @example
   * ```ts
   * import type { McpRequestState } from "effect-surface/mcp"
   * const options: McpRequestState.Options = { maxParked: 16 }
   * ```
   */
  readonly maxParked?: number | undefined
  /**
   * The largest one answer in a request's `inputResponses` may be, in bytes of JSON; a request
   * carrying a larger one is refused (-32602) with a sentence naming the answer. Default 1 MiB.
   *
   * @example
   * ```ts
   * import type { McpRequestState } from "effect-surface/mcp"
   * const options: McpRequestState.Options = { maxAnswerBytes: 64 * 1024 }
   * ```
   */
  readonly maxAnswerBytes?: number | undefined
  /**
   * The most bytes one caller's waiting calls may hold together: each call's arguments (the JSON
   * size of its request's) and the answers its handler was given, kept while it waits. A call that
   * would wait holding more is ended and answered with a sentence saying so. Default 16 MiB.
   *
   * @example
   * ```ts
   * import type { McpRequestState } from "effect-surface/mcp"
   * const options: McpRequestState.Options = { maxHeldBytes: 4 * 1024 * 1024 }
   * ```
   */
  readonly maxHeldBytes?: number | undefined
}

/**
 * What the calls waiting on their states may hold, each bound resolved (see `Options`).
 *
 * @example
 * ```ts
 * import { McpRequestState } from "effect-surface/mcp"
 * McpRequestState.make().limits.maxParked // 64
 * ```
 *
 * @since 0.1.0
 */
export interface Limits {
  readonly maxParked: number
  readonly maxAnswerBytes: number
  readonly maxHeldBytes: number
}

const limitsOf = (options: Options): Limits => ({
  maxParked: options.maxParked ?? 64,
  maxAnswerBytes: options.maxAnswerBytes ?? 1024 * 1024,
  maxHeldBytes: options.maxHeldBytes ?? 16 * 1024 * 1024
})

// Answers carried past this are left out (the call can then be continued only where it runs).
const maxCarried = 16 * 1024

// A state longer than this was not issued here: refused before it is decoded or hashed.
const maxLength = 4 * maxCarried
const version = "v1"

const mac = (key: Buffer, body: string) => Crypto.createHmac("sha256", key).update(body).digest()

/**
 * A codec over `options.key` (or a key made for this process).
 *
 * @example
 * ```ts
 * import { McpRequestState } from "effect-surface/mcp"
 * const codec = McpRequestState.make({ ttl: "5 minutes" })
 * ```
 *
 * @since 0.1.0
 */
export const make = (options: Options = {}): Codec => {
  const given = options.key === undefined ? undefined : Redacted.isRedacted(options.key)
    ? Redacted.value(options.key)
    : options.key
  const key = given === undefined || given === "" ? Crypto.randomBytes(32) : Buffer.from(given, "utf8")
  const ttl = Duration.fromInputUnsafe(options.ttl ?? "10 minutes")
  return {
    ttl,
    limits: limitsOf(options),
    given: given !== undefined && given !== "",
    sign: (payload) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const carried = payload.answers === undefined ? undefined : JSON.stringify(payload.answers)
        const body = Buffer.from(JSON.stringify({
          c: payload.call,
          i: payload.instance,
          r: payload.round,
          t: payload.target,
          x: now + Duration.toMillis(ttl),
          ...(carried === undefined || carried.length > maxCarried ? {} : { a: payload.answers })
        })).toString("base64url")
        return `${version}.${body}.${mac(key, body).toString("base64url")}`
      }),
    verify: (state, target) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const parts = state.length > maxLength ? [] : state.split(".")
        const [tag, body, signature] = parts
        if (parts.length !== 3 || tag !== version || body === undefined || signature === undefined) {
          return Effect.fail(new StateRefused({ reason: "malformed" }))
        }
        const given = Buffer.from(signature, "base64url")
        const expected = mac(key, body)
        if (given.length !== expected.length || !Crypto.timingSafeEqual(given, expected)) {
          return Effect.fail(new StateRefused({ reason: "tampered" }))
        }
        const decoded = decodePayload(Buffer.from(body, "base64url").toString("utf8"))
        if (Result.isFailure(decoded)) return Effect.fail(new StateRefused({ reason: "malformed" }))
        const { a, c, i, r, t, x } = decoded.success
        if (x <= now) return Effect.fail(new StateRefused({ reason: "expired" }))
        if (t !== target) return Effect.fail(new StateRefused({ reason: "foreign" }))
        return Effect.succeed({ call: c, instance: i, round: r, target: t, expires: x, answers: a })
      })
  }
}

/**
 * The digest a state is bound to: the request's method, the name or URI it targets, and its
 * arguments, as canonical JSON (keys sorted), hashed.
 *
 * @example
 * ```ts
 * import { McpRequestState } from "effect-surface/mcp"
 * McpRequestState.targetOf("tools/call", "tasks_add", { title: "x" }) === McpRequestState.targetOf("tools/call", "tasks_add", { title: "x" }) // true
 * ```
 *
 * @since 0.1.0
 */
export const targetOf = (method: string, name: string, args: unknown): string =>
  Crypto.createHash("sha256").update(canonicalOr([method, name, args ?? null], `${method} ${name}`)).digest(
    "base64url"
  ).slice(0, 22)

// Arguments nested past the stack's depth are hashed by request alone rather than fail the call.
const canonicalOr = (value: unknown, fallback: string): string => {
  try {
    return canonical(value)
  } catch {
    return fallback
  }
}

// JSON with object keys sorted, so two encodings of one request hash alike.
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).sort().map((k) =>
      `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`
    )
    return `{${entries.join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}
