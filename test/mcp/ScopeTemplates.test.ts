// A scope keyed by an app resource template protects every URI that template serves, whatever
// RFC 6570 operator it uses: the URI is matched once, by the matcher that serves it, and the scope
// needed is that of what matched. Over HTTP behind the resource server with the official clients in
// both eras (and a 2025 subscribe); then as a property over generated templates of every operator
// and generated URIs, driving the compiled table and the scopes directly.
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import { Identity } from "effect-surface"
import type { Bundle } from "effect-surface"
import { McpAppResources, McpScopes } from "effect-surface/mcp"
import { raw } from "./modern.ts"
import { connectAs, serveScoped, type Token, uris } from "./scopedFiles.ts"

const eras = ["legacy", "pin"] as const

const attempt = <A>(run: () => Promise<A>) =>
  Effect.match(Effect.tryPromise(run), {
    onFailure: (error) => ({ ok: false as const, why: String(error.cause) }),
    onSuccess: (value) => ({ ok: true as const, value })
  })

describe("app resource templates and their scopes", () => {
  it.live("a URI an app template serves is read only with the template's scope, whatever its operator, in both eras", () =>
    Effect.gen(function*() {
      const { url } = yield* serveScoped()
      for (const mode of eras) {
        const guest = yield* connectAs(url, mode, "guest")
        const reader = yield* connectAs(url, mode, "reader")
        for (const uri of Object.values(uris)) {
          const refused = yield* attempt(() => guest.readResource({ uri }))
          assert.isFalse(refused.ok, `${mode} ${uri} was read without files:read`)
          if (!refused.ok) assert.match(refused.why, /Insufficient scope: required "files:read"/, `${mode} ${uri}`)
          const read = yield* attempt(() => reader.readResource({ uri }))
          assert.isTrue(read.ok, `${mode} ${uri}`)
          if (read.ok) assert.strictEqual(read.value.contents[0]?.uri, uri)
        }
      }
    }))

  it.live("a 2025 subscribe to a URI an app template serves needs the template's scope", () =>
    Effect.gen(function*() {
      const { url } = yield* serveScoped()
      const guest = yield* connectAs(url, "legacy", "guest")
      const reader = yield* connectAs(url, "legacy", "reader")
      for (const uri of Object.values(uris)) {
        const refused = yield* attempt(() => guest.subscribeResource({ uri }))
        assert.isFalse(refused.ok, `${uri} was subscribed to without files:read`)
        if (!refused.ok) assert.match(refused.why, /Insufficient scope: required "files:read"/, uri)
        assert.isTrue((yield* attempt(() => reader.subscribeResource({ uri }))).ok, uri)
      }
    }))
})

// Templates no scope names beside scopes keyed by URI: a URI under a template of its own, a fixed
// file's URI (`files://secret`, needing files:read) under a template that also reads it, and a key
// stricter than the scope of the template that serves it.
const spelled = {
  templates: ["plain://docs/{name}", "files://{name}", "kb://{+path}"],
  scopes: { "plain://docs/secret": "files:read", "kb://{+path}": "board:read", "kb://private/x": "board:write" }
}

/** Spellings of a URI keyed by files:read that the templates read as that URI. */
const secretSpellings = ["plain://docs/secret", "plain://docs/secre%74", "plain://docs/%73ecret", "files://secre%74"]

// A raw 2026 listen, its HTTP status and refusal.
const rawListen = (url: string, token: Token, uri: string) =>
  Effect.map(
    raw(url, 7, "subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }, {}, {
      authorization: `Bearer ${token}`
    }),
    ({ messages, status }) => ({
      status,
      message: String((messages[0] as { error?: { message?: string } }).error?.message)
    })
  )

describe("scopes keyed by URI", () => {
  it.live("a scope keyed by a URI protects every spelling a template reads as that URI, in both eras", () =>
    Effect.gen(function*() {
      const { url } = yield* serveScoped({}, spelled)
      for (const mode of eras) {
        const guest = yield* connectAs(url, mode, "guest")
        const reader = yield* connectAs(url, mode, "reader")
        for (const uri of secretSpellings) {
          const refused = yield* attempt(() => guest.readResource({ uri }))
          assert.isFalse(refused.ok, `${mode} ${uri} was read without files:read`)
          if (!refused.ok) assert.match(refused.why, /Insufficient scope: required "files:read"/, `${mode} ${uri}`)
          assert.isTrue((yield* attempt(() => reader.readResource({ uri }))).ok, `${mode} ${uri}`)
        }
        assert.isTrue((yield* attempt(() => guest.readResource({ uri: "plain://docs/other" }))).ok, mode)
      }
    }))

  it.live("a 2025 subscribe and a 2026 listen of another spelling of a keyed URI need the key's scope", () =>
    Effect.gen(function*() {
      const { url } = yield* serveScoped({}, spelled)
      const guest = yield* connectAs(url, "legacy", "guest")
      const reader = yield* connectAs(url, "legacy", "reader")
      for (const uri of secretSpellings) {
        const refused = yield* attempt(() => guest.subscribeResource({ uri }))
        assert.isFalse(refused.ok, `${uri} was subscribed to without files:read`)
        if (!refused.ok) assert.match(refused.why, /Insufficient scope: required "files:read"/, uri)
        assert.isTrue((yield* attempt(() => reader.subscribeResource({ uri }))).ok, uri)
        const listened = yield* rawListen(url, "guest", uri)
        assert.strictEqual(listened.status, 403, `${uri} was listened to without files:read`)
        assert.include(listened.message, "needs scope")
      }
    }))

  it.live("a scope keyed by a URI is needed beside the scope of the template that serves it, in both eras", () =>
    Effect.gen(function*() {
      const { url } = yield* serveScoped({}, spelled)
      for (const mode of eras) {
        const reader = yield* connectAs(url, mode, "reader")
        const admin = yield* connectAs(url, mode, "admin")
        for (const uri of ["kb://private/x", "kb://private/%78"]) {
          const refused = yield* attempt(() => reader.readResource({ uri }))
          assert.isFalse(refused.ok, `${mode} ${uri} was read with the template's scope alone`)
          if (!refused.ok)
            assert.match(refused.why, /Insufficient scope: required "[^"]*board:write"/, `${mode} ${uri}`)
          assert.isTrue((yield* attempt(() => admin.readResource({ uri }))).ok, `${mode} ${uri}`)
        }
        assert.isTrue((yield* attempt(() => reader.readResource({ uri: "kb://public/y" }))).ok, mode)
        const guest = yield* connectAs(url, mode, "guest")
        assert.isFalse((yield* attempt(() => guest.readResource({ uri: "kb://public/y" }))).ok, mode)
      }
    }))
})

// Generated templates: a literal prefix, one expression of any operator (one or two variables, maybe
// exploded), a literal suffix; two such templates in one table, each with a scope of its own.
const operators = ["", "+", "#", ".", "/", ";", "?", "&"] as const
const Literal = Schema.String.check(Schema.isPattern(/^[a-z/.]{0,4}$/))
const Operator = Schema.Literals(operators)
const Name = Schema.Literals(["a", "b", "id"])
const Expression = Arbitrary.all({
  before: Arbitrary.schema(Literal),
  operator: Arbitrary.schema(Operator),
  names: Arbitrary.array(Arbitrary.schema(Name), { minLength: 1, maxLength: 2 }),
  exploded: Arbitrary.schema(Schema.Boolean),
  after: Arbitrary.schema(Literal)
})
const templateOf = (e: typeof Expression extends Arbitrary.Arbitrary<infer A> ? A : never) =>
  `t://${e.before}{${e.operator}${[...new Set(e.names)].join(",")}${e.exploded ? "*" : ""}}${e.after}`

// URIs built of the characters each operator treats specially, under the prefixes the templates use.
const Tail = Schema.String.check(Schema.isPattern(/^[a-z/.,;?&=#%]{0,12}$/))

// A handler reads what its template and the values it was given say: two reads alike read one thing.
const read = (served: string, params: McpAppResources.Params) =>
  Effect.succeed({ text: JSON.stringify([served, params]) })
const compiled = (first: string, second: string) =>
  McpAppResources.compile({
    templates: {
      [first]: { name: "first", read: (params) => read(first, params) },
      ...(second === first ? {} : { [second]: { name: "second", read: (params) => read(second, params) } })
    }
  })

const roster = { byUri: new Map(), templates: [] } as unknown as Bundle.Resolved

describe("the scope a read needs, as a property", () => {
  it.effect.prop(
    "for every URI, the template that serves a read is the template whose scope the check asks for",
    { first: Expression, second: Expression, tail: Arbitrary.schema(Tail), pick: Arbitrary.schema(Schema.Boolean) },
    ({ first, pick, second, tail }) =>
      Effect.gen(function*() {
        const [one, two] = [templateOf(first), templateOf(second)]
        const table = yield* compiled(one, two)
        // One template string is one key: two equal templates are one entry with one scope.
        const resources = one === two ? { [one]: "scope:one" } : { [one]: "scope:one", [two]: "scope:two" }
        const scopes = McpScopes.make({ resources }, {
          resolved: Effect.succeed(roster),
          prompts: Effect.succeed({}),
          apps: Effect.succeed(table)
        })
        const uri = `t://${(pick ? first : second).before}${tail}`
        const found = McpAppResources.find(table, uri)
        const served = found === undefined ? undefined : (yield* McpAppResources.read(found))[0]
        const need = yield* scopes.needs("resources/read", { uri })
        const expected = served === undefined
          ? undefined
          : "text" in served && JSON.parse(served.text)[0] === one
          ? "scope:one"
          : "scope:two"
        assert.strictEqual(need?.scope, expected, `${uri} under ${one} and ${two}`)
      }),
    { arbitrary: { runs: 600 } }
  )
})

// A URI keyed by a scope, and another spelling of it: some of its characters percent-encoded.
const Encoded = Arbitrary.array(Arbitrary.schema(Schema.Boolean), { minLength: 12, maxLength: 12 })
const spell = (uri: string, mask: ReadonlyArray<boolean>, upper: boolean) =>
  [...uri].map((char, i) => {
    if (i < 4 || mask[i % mask.length] !== true) return char
    const hex = char.charCodeAt(0).toString(16).padStart(2, "0")
    return `%${upper ? hex.toUpperCase() : hex}`
  }).join("")

const holding = (scopes: ReadonlyArray<string>) => Identity.token({ subject: "s", clientId: "c", scopes: [...scopes] })
const all = ["scope:one", "scope:two", "scope:key"]

describe("the scopes a read needs, with scopes keyed by URI, as a property", () => {
  it.effect.prop(
    "a read is served only to a caller holding every scope that applies: its template's, and that of any keyed URI it is read as",
    {
      first: Expression,
      second: Expression,
      tail: Arbitrary.schema(Tail),
      mask: Encoded,
      upper: Arbitrary.schema(Schema.Boolean),
      pick: Arbitrary.schema(Schema.Boolean)
    },
    ({ first, mask, pick, second, tail, upper }) =>
      Effect.gen(function*() {
        const [one, two] = [templateOf(first), templateOf(second)]
        const table = yield* compiled(one, two)
        const key = `t://${(pick ? first : second).before}${tail}`
        const resources = { [one]: "scope:one", ...(one === two ? {} : { [two]: "scope:two" }), [key]: "scope:key" }
        const scopes = McpScopes.make({ resources }, {
          resolved: Effect.succeed(roster),
          prompts: Effect.succeed({}),
          apps: Effect.succeed(table)
        })
        const readOf = (uri: string) => {
          const found = McpAppResources.find(table, uri)
          return found === undefined ? Effect.succeed(undefined) : Effect.map(McpAppResources.read(found), (c) => c[0])
        }
        const uri = spell(key, mask, upper)
        const served = yield* readOf(uri)
        if (served === undefined || !("text" in served)) return
        const [template] = JSON.parse(served.text) as [string]
        const allowed = (held: ReadonlyArray<string>) =>
          Effect.map(scopes.needs("resources/read", { uri }, holding(held)), (need) =>
            need === undefined || held.includes(need.scope))
        const where = `${uri} (a spelling of ${key}) under ${one} and ${two}`
        assert.isTrue(yield* allowed(all), where)
        assert.isFalse(
          yield* allowed(all.filter((s) =>
            s !== resources[template]
          )),
          `template's scope: ${where}`
        )
        const keyed = yield* readOf(key)
        if (keyed !== undefined && "text" in keyed && keyed.text === served.text) {
          assert.isFalse(yield* allowed(all.filter((s) => s !== "scope:key")), `key's scope: ${where}`)
        }
      }),
    { arbitrary: { runs: 600 } }
  )
})
