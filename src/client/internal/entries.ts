/**
 * A toolset's server list, read as what it is: entries from a file somebody else wrote.
 *
 * Each entry is decoded with a schema and a bad one is refused with a sentence naming the entry and
 * the field; what a schema cannot say (a function `open`, a bundle's `core`, a URL that parses, an
 * `oauth` redirect) is checked after. Each checked entry is also known by what it is — command and
 * arguments, or transport and URL — so two servers of one name get distinct, stable keys.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { toInputError } from "../../core/internal/issues.ts"
import { WiringError } from "../Errors.ts"
import type * as Names from "../Names.ts"
import * as OAuthChecks from "./oauth/checks.ts"
import * as OptionChecks from "./options.ts"
import * as Redact from "./redact.ts"

const Millis = Schema.Finite.check(Schema.isGreaterThan(0))
const Strings = Schema.Record(Schema.String, Schema.String)
const common = {
  name: Schema.NonEmptyString,
  timeoutMs: Schema.optionalKey(Millis),
  connectTimeoutMs: Schema.optionalKey(Millis),
  protocol: Schema.optionalKey(Schema.Literals(["auto", "2026-07-28", "2025-11-25"]))
}
const EntrySchema = Schema.Union([
  Schema.Struct({
    ...common,
    type: Schema.Literal("stdio"),
    command: Schema.NonEmptyString,
    args: Schema.optionalKey(Schema.Array(Schema.String)),
    env: Schema.optionalKey(Strings),
    cwd: Schema.optionalKey(Schema.String),
    root: Schema.optionalKey(Schema.String)
  }),
  Schema.Struct({
    ...common,
    type: Schema.Literals(["streamable-http", "sse"]),
    url: Schema.String,
    headers: Schema.optionalKey(Strings),
    oauth: Schema.optionalKey(OAuthChecks.ServerOptionsSchema)
  }),
  Schema.Struct({ ...common, type: Schema.Literal("transport"), open: Schema.Unknown }),
  Schema.Struct({ ...common, type: Schema.Literal("local"), core: Schema.Unknown })
])
const decodeEntry = Schema.decodeUnknownResult(EntrySchema, { errors: "all" })

/** A server entry as its schema reads it. */
export type Entry = typeof EntrySchema.Type

const refuse = (reason: string) => Effect.fail(new WiringError({ reason }))

const checkEntry = (entry: unknown, index: number): Effect.Effect<Entry, WiringError> => {
  const decoded = decodeEntry(entry)
  const label = typeof entry === "object" && entry !== null && "name" in entry && typeof entry.name === "string"
    ? `server "${entry.name}" (entry ${index})`
    : `server entry ${index}`
  if (Result.isFailure(decoded))
    return refuse(`${label} cannot be used: ${toInputError(decoded.failure.issue, []).message}`)
  const server = decoded.success
  if (server.type === "transport" && typeof server.open !== "function") {
    return refuse(`${label} cannot be used: "open" must be a function that returns a transport`)
  }
  if (server.type === "local" && !Context.isContext(server.core) && !Layer.isLayer(server.core)) {
    return refuse(
      `${label} cannot be used: "core" must be the bundle's core services (a Context) or a Layer providing them`
    )
  }
  if ((server.type === "streamable-http" || server.type === "sse") && !URL.canParse(server.url)) {
    return refuse(`${label} cannot be used: "url" is not a URL`)
  }
  if ((server.type === "streamable-http" || server.type === "sse") && server.oauth !== undefined) {
    const refused = OAuthChecks.serverRefusal(server.oauth)
    if (refused !== undefined) return refuse(`${label} cannot be used: ${refused}`)
  }
  return Effect.succeed(server)
}

// What a server is for its name's suffix, and what else tells it apart (its environment, its headers
// and full URL); header names in any case are one header.
const identityOf = (server: Entry): Names.Identity => {
  switch (server.type) {
    case "stdio":
      return {
        name: server.name,
        identity: ["stdio", server.command, server.args ?? [], server.cwd ?? null],
        particulars: { env: server.env ?? {} }
      }
    case "streamable-http":
    case "sse":
      return {
        name: server.name,
        identity: [server.type, Redact.url(server.url)],
        particulars: {
          url: server.url,
          headers: Object.fromEntries(Object.entries(server.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
        }
      }
    case "transport":
    case "local":
      return { name: server.name, identity: [server.type] }
  }
}

/**
 * Check the server list and the options around it, refusing the first thing wrong: a list that is
 * none, an option of the wrong shape, an entry that cannot be used, a server that signs in where the
 * options cannot. Answers each entry's identity, in order.
 */
export const check = (
  servers: unknown,
  options: object
): Effect.Effect<ReadonlyArray<Names.Identity>, WiringError> =>
  Effect.gen(function*() {
    if (!Array.isArray(servers)) return yield* refuse("servers must be a list of server entries")
    const refused = OptionChecks.refusal(options)
    if (refused !== undefined) return yield* refuse(refused)
    const entries = yield* Effect.forEach(servers, checkEntry)
    const signsIn = entries.find((s) => (s.type === "streamable-http" || s.type === "sse") && s.oauth !== undefined)
    const oauthRefused = OAuthChecks.optionsRefusal(signsIn?.name, options)
    if (oauthRefused !== undefined) return yield* refuse(oauthRefused)
    return entries.map(identityOf)
  })
