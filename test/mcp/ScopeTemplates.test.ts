// A scope keyed by an app resource template protects every URI that template serves, whatever
// RFC 6570 operator it uses: the URI is matched once, by the matcher that serves it, and the scope
// needed is that of what matched. Over HTTP behind the resource server with the official clients in
// both eras (and a 2025 subscribe); then as a property over generated templates of every operator
// and generated URIs, driving the compiled table and the scopes directly.
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import type { Bundle } from "effect-surface"
import { McpAppResources, McpScopes } from "effect-surface/mcp"
import { connectAs, serveScoped, uris } from "./scopedFiles.ts"

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

const read = (served: string) => Effect.succeed({ text: served })
const compiled = (first: string, second: string) =>
  McpAppResources.compile({
    templates: {
      [first]: { name: "first", read: () => read(first) },
      ...(second === first ? {} : { [second]: { name: "second", read: () => read(second) } })
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
          : "text" in served && served.text === one
          ? "scope:one"
          : "scope:two"
        assert.strictEqual(need?.scope, expected, `${uri} under ${one} and ${two}`)
      }),
    { arbitrary: { runs: 600 } }
  )
})
