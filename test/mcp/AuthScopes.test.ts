// Scopes narrow resource templates and completions as they narrow tools and resources: over HTTP
// behind the resource server, with the official SDK client in both eras, a collection's item
// template and a prompt's completable argument that need a scope are absent from the lists (and a
// completion of them refused) for a token without it and there for one with it, while a template
// and a prompt with no scope are shown to, and completed for, every authenticated caller.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Client, Expose, Identity, Implementation, Store, Surface } from "effect-surface"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import type { McpPrompts } from "effect-surface/mcp"
import { overHttp } from "./modern.ts"

const Book = Schema.Struct({ title: Schema.String })

const Library = Surface.make({
  collections: {
    shelf: Surface.collection(Schema.String, Book),
    notices: Surface.collection(Schema.String, Schema.String)
  }
})

const shelfTemplate = "surface://collections/shelf/{id}"
const noticesTemplate = "surface://collections/notices/{id}"

const ids = (typed: string, all: ReadonlyArray<string>) => Effect.succeed(all.filter((id) => id.startsWith(typed)))

const prompt = (about: string, names: ReadonlyArray<string>): McpPrompts.Prompt<
  Schema.Struct<{ readonly name: typeof Schema.String }>
> => ({
  description: `Ask about ${about}.`,
  arguments: Schema.Struct({ name: Schema.String }),
  complete: { name: (typed) => ids(typed, names) },
  handler: ({ name }) => Effect.succeed([{ role: "user", content: { type: "text", text: `About ${name}.` } }])
})

/** The library behind a resource server: `reader` holds `library:read`, `guest` no scope at all. */
const serveLibrary = Effect.gen(function*() {
  const shelf = yield* Store.make<string, typeof Book.Type>([["b1", { title: "Dune" }], ["b2", { title: "Emma" }]])
  const notices = yield* Store.make<string, string>([["n1", "closed on sunday"], ["x1", "open late"]])
  const library = Implementation.make(Library, { collections: { shelf, notices } })
  const served = yield* McpHttp.serve({
    core: {
      surface: Library,
      expose: Expose.make(Library, { collections: { shelf: { scope: "library:read" }, notices: true } })
    },
    client: Effect.succeed({ core: Client.erase(Client.directDispatch(library)), clients: {} }),
    prompts: { recommend: prompt("a book", ["borges", "bronte"]), greet: prompt("a visitor", ["bo", "bea"]) },
    scopes: { prompts: { recommend: "library:read" } },
    http: { port: 0 }
  }).pipe(
    Effect.provide(
      McpAuth.layer({ scopesSupported: ["library:read"] }).pipe(
        Layer.provide(McpTokenVerifier.layerTest({
          issuer: "https://auth.test",
          tokens: {
            reader: Identity.token({ subject: "ada", clientId: "t", scopes: ["library:read"] }),
            guest: Identity.token({ subject: "bo", clientId: "t", scopes: [] })
          }
        }))
      )
    )
  )
  return served.url
})

const bearer = (token: string): typeof fetch => (input, init) => {
  const headers = new Headers(init?.headers)
  headers.set("authorization", `Bearer ${token}`)
  return fetch(input, { ...init, headers })
}

const eras = ["legacy", "pin"] as const

const connectAs = (url: string, mode: (typeof eras)[number], token: string) => overHttp(url, mode, {}, bearer(token))

type Connected = Effect.Success<ReturnType<typeof connectAs>>

const templatesOf = (client: Connected) =>
  Effect.map(
    Effect.promise(() => client.listResourceTemplates()),
    (listed) => listed.resourceTemplates.map((template) => template.uriTemplate).sort()
  )

const completeOf = (client: Connected, ref: Record<string, string>, name: string, value: string) =>
  Effect.tryPromise(() =>
    client.complete({ ref: ref as never, argument: { name, value } }).then((answer) => answer.completion.values)
  )

const template = (uri: string) => ({ type: "ref/resource", uri })
const promptRef = (name: string) => ({ type: "ref/prompt", name })

describe("scopes narrow templates and completions", () => {
  it.live("an item template needing a scope is listed, and its items read, only for a token holding it; one needing none, for every caller", () =>
    Effect.gen(function*() {
      const url = yield* serveLibrary
      for (const mode of eras) {
        const guest = yield* connectAs(url, mode, "guest")
        const reader = yield* connectAs(url, mode, "reader")
        assert.deepStrictEqual(yield* templatesOf(guest), [noticesTemplate], mode)
        assert.deepStrictEqual(yield* templatesOf(reader), [noticesTemplate, shelfTemplate].sort(), mode)
        // An item of a template reads under the template's scope.
        const hidden = yield* Effect.flip(
          Effect.tryPromise(() => guest.readResource({ uri: "surface://collections/shelf/b1" }))
        )
        assert.match(String(hidden.cause), /Insufficient scope: required "library:read"/, mode)
        const book = yield* Effect.promise(() => reader.readResource({ uri: "surface://collections/shelf/b1" }))
        assert.include(JSON.stringify(book.contents), "Dune")
        const notice = yield* Effect.promise(() => guest.readResource({ uri: "surface://collections/notices/n1" }))
        assert.include(JSON.stringify(notice.contents), "closed on sunday")
      }
    }))

  it.live("completing a template's id is refused without the template's scope and answered with it, in both eras", () =>
    Effect.gen(function*() {
      const url = yield* serveLibrary
      for (const mode of eras) {
        const guest = yield* connectAs(url, mode, "guest")
        const reader = yield* connectAs(url, mode, "reader")
        const refused = yield* Effect.flip(completeOf(guest, template(shelfTemplate), "id", "b"))
        assert.match(String(refused.cause), /Insufficient scope: required "library:read"/, mode)
        assert.deepStrictEqual(yield* completeOf(reader, template(shelfTemplate), "id", "b"), ["b1", "b2"], mode)
        // No scope needed: an authenticated caller without any scope still completes it.
        assert.deepStrictEqual(yield* completeOf(guest, template(noticesTemplate), "id", "n"), ["n1"], mode)
      }
    }))

  it.live("a prompt's completable argument needing a scope is hidden and refused without it, and one needing none is answered for every caller", () =>
    Effect.gen(function*() {
      const url = yield* serveLibrary
      for (const mode of eras) {
        const guest = yield* connectAs(url, mode, "guest")
        const reader = yield* connectAs(url, mode, "reader")
        const listed = yield* Effect.promise(() => guest.listPrompts())
        assert.deepStrictEqual(listed.prompts.map((p) => p.name), ["greet"], mode)
        const refused = yield* Effect.flip(completeOf(guest, promptRef("recommend"), "name", "b"))
        assert.match(String(refused.cause), /Insufficient scope: required "library:read"/, mode)
        assert.deepStrictEqual(
          yield* completeOf(reader, promptRef("recommend"), "name", "b"),
          ["borges", "bronte"],
          mode
        )
        assert.deepStrictEqual(yield* completeOf(guest, promptRef("greet"), "name", "b"), ["bo", "bea"], mode)
        const all = yield* Effect.promise(() => reader.listPrompts())
        assert.deepStrictEqual(all.prompts.map((p) => p.name).sort(), ["greet", "recommend"], mode)
      }
    }))
})
