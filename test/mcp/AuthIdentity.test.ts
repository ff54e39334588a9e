// A surface procedure reads who is calling it: behind the resource server the token's subject, and
// everywhere nothing is authenticated (the command line, an in-memory host, a toolset's local
// entry, a wire served with `Caller.none`) the explicit local caller. A card board where only a
// card's author may remove it shows per-object authorization decided by the procedure itself, and
// a procedure needing anything beyond the caller's services is refused where the bundle is built.
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Ref, Schema } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Caller, Client, Engine, Expose, Identity, Implementation, Surface } from "effect-surface"
import type { Bundle } from "effect-surface"
import { Cli } from "effect-surface/cli"
import { McpToolset } from "effect-surface/client"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import type { McpFace } from "effect-surface/mcp"
import { Wire } from "effect-surface/wire"
import { failedWith, runCli } from "../cli/harness.ts"
import * as AuthIssuer from "./authIssuer.ts"
import { call, connect, textOf } from "./harness.ts"
import { overHttp } from "./modern.ts"

class NotYourCard extends Schema.TaggedError<NotYourCard>()("NotYourCard", {
  id: Schema.String,
  author: Schema.String
}) {
  override get message(): string {
    return `only ${this.author} may remove card ${this.id}`
  }
}

class NoSuchCard extends Schema.TaggedError<NoSuchCard>()("NoSuchCard", { id: Schema.String }) {}

const Cards = Surface.make({
  procedures: {
    card: {
      add: {
        input: Schema.Struct({ text: Schema.String }),
        output: Schema.Struct({ id: Schema.String, author: Schema.String })
      },
      remove: { input: Schema.Struct({ id: Schema.String }), error: Schema.Union([NotYourCard, NoSuchCard]) }
    }
  }
})

/** The board's cards, one already written by ada; a card is removed only by its author. */
const makeCards = Effect.gen(function*() {
  const cards = yield* Ref.make(new Map([["c0", { author: "ada", text: "ada's own" }]]))
  const written = yield* Ref.make(0)
  return Implementation.make(Cards, {
    procedures: {
      card: {
        add: ({ text }) =>
          Effect.gen(function*() {
            const me = yield* Identity.current
            const id = `c${yield* Ref.updateAndGet(written, (n) => n + 1)}`
            yield* Ref.update(cards, (all) => new Map(all).set(id, { author: me.subject, text }))
            return { id, author: me.subject }
          }),
        remove: ({ id }) =>
          Effect.gen(function*() {
            const me = yield* Identity.current
            const card = (yield* Ref.get(cards)).get(id)
            if (card === undefined) return yield* new NoSuchCard({ id })
            if (card.author !== me.subject) return yield* new NotYourCard({ id, author: card.author })
            yield* Ref.update(cards, (all) => {
              const left = new Map(all)
              left.delete(id)
              return left
            })
          })
      }
    }
  })
})

const optionsOver = (cards: Effect.Success<typeof makeCards>): McpFace.Options => ({
  core: { surface: Cards, expose: Expose.all(Cards) },
  client: Effect.succeed({ core: Client.erase(Client.directDispatch(cards)), clients: {} })
})

const textIn = (result: unknown) =>
  ((result as { readonly content: ReadonlyArray<{ readonly text: string }> }).content[0]?.text) ?? ""

const bearer = (token: string): typeof fetch => (input, init) => {
  const headers = new Headers(init?.headers)
  headers.set("authorization", `Bearer ${token}`)
  return fetch(input, { ...init, headers })
}

describe("a procedure reads its caller", () => {
  it.live("behind the resource server a card is removed by its author alone: another subject gets the declared refusal, in both eras", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* McpHttp.serve({ ...optionsOver(yield* makeCards), http: { port: 0 } }).pipe(
        Effect.provide(
          McpAuth.layer({ scopesSupported: ["cards"] }).pipe(
            Layer.provide(McpTokenVerifier.layerJwt({ issuer: issuer.issuer }))
          )
        )
      )
      const ada = yield* Effect.promise(() => issuer.sign({ aud: served.url, sub: "ada" }))
      const bo = yield* Effect.promise(() => issuer.sign({ aud: served.url, sub: "bo", client_id: "bo-cli" }))
      for (const mode of ["legacy", "pin"] as const) {
        const asAda = yield* overHttp(served.url, mode, {}, bearer(ada))
        const asBo = yield* overHttp(served.url, mode, {}, bearer(bo))
        const added = yield* Effect.promise(() => asAda.callTool({ name: "card_add", arguments: { text: mode } }))
        const { id, author } = added.structuredContent as { readonly id: string; readonly author: string }
        assert.strictEqual(author, "ada")
        const refused = yield* Effect.promise(() => asBo.callTool({ name: "card_remove", arguments: { id } }))
        assert.isTrue(refused.isError)
        assert.strictEqual(textIn(refused), `effect-surface: only ada may remove card ${id}`)
        assert.deepStrictEqual(refused.structuredContent, { _tag: "NotYourCard", id, author: "ada" })
        const own = yield* Effect.promise(() => asBo.callTool({ name: "card_add", arguments: { text: "bo's" } }))
        assert.strictEqual((own.structuredContent as { readonly author: string }).author, "bo")
        const removed = yield* Effect.promise(() => asAda.callTool({ name: "card_remove", arguments: { id } }))
        assert.notStrictEqual(removed.isError, true, textIn(removed))
        const gone = yield* Effect.promise(() => asAda.callTool({ name: "card_remove", arguments: { id } }))
        assert.deepStrictEqual(gone.structuredContent, { _tag: "NoSuchCard", id })
      }
    }))

  it.live("from an in-memory host and from the command line the same procedure sees the local caller", () =>
    Effect.gen(function*() {
      const options = optionsOver(yield* makeCards)
      const host = yield* connect(options)
      const byHost = yield* call(host, "card_add", { text: "from a host" })
      assert.deepStrictEqual(byHost.structuredContent, { id: "c1", author: "local" })
      const refused = yield* call(host, "card_remove", { id: "c0" })
      assert.isTrue(refused.isError)
      assert.strictEqual(textOf(refused), "effect-surface: only ada may remove card c0")
      const byShell = yield* runCli(Cli.run({ ...options, name: "cards" }, ["card", "add", "--text", "typed"]))
      assert.isTrue(Exit.isSuccess(byShell.exit))
      assert.strictEqual(byShell.stdout, `{"id":"c2","author":"local"}\n`)
      const removed = yield* runCli(Cli.run({ ...options, name: "cards" }, ["card", "remove", "--id", "c1"]))
      assert.isTrue(Exit.isSuccess(removed.exit))
      const notMine = yield* runCli(Cli.run({ ...options, name: "cards" }, ["card", "remove", "--id", "c0"]))
      assert.isDefined(failedWith(notMine.exit))
      assert.include(notMine.stderr, "only ada may remove card c0")
    }))

  it.live("a toolset's local entry calls the procedure as the local caller, or as the caller it is given", () =>
    Effect.gen(function*() {
      const core = yield* Layer.build(Engine.layerBundle(optionsOver(yield* makeCards)))
      const local = yield* McpToolset.make([{ name: "cards", type: "local", core }])
      const added = yield* local.call("cards__card_add", { text: "from the toolset" })
      assert.deepStrictEqual(added.structuredContent, { id: "c1", author: "local" })
      const refused = yield* Effect.flip(local.call("cards__card_remove", { id: "c0" }))
      assert.include(refused.message, "only ada may remove card c0")
      const ada = Identity.token({ subject: "ada", clientId: "t", scopes: [] })
      const asAda = yield* McpToolset.make([{ name: "cards", type: "local", core }], {
        caller: Context.add(Caller.none, Identity.Identity, ada)
      })
      yield* asAda.call("cards__card_remove", { id: "c0" })
      const gone = yield* Effect.flip(asAda.call("cards__card_remove", { id: "c0" }))
      assert.include(gone.message, "NoSuchCard")
    }))

  it.live("no caller crosses a wire: a served procedure sees the services the server was started with", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "procid-"))),
        (made) => Effect.sync(() => Fs.rmSync(made, { recursive: true, force: true }))
      )
      const path = Path.join(dir, "s.sock")
      const cards = yield* makeCards
      yield* Wire.serve(cards, { path, expose: Expose.all(Cards) }).pipe(
        Effect.provideContext(Caller.none)
      )
      const dialled = yield* Wire.dial(Cards, { path })
      const added = yield* dialled.client.procedures.card.add({ text: "over the wire" })
      assert.deepStrictEqual(added, { id: "c1", author: "local" })
    }))

  it("a procedure needing anything beyond the caller's services does not compile into a bundle", () => {
    class Ledger extends Context.Service<Ledger, { readonly owner: string }>()("test/Ledger") {}
    const needsLedger = Implementation.make(Cards, {
      procedures: {
        card: {
          add: () => Effect.map(Effect.service(Ledger), (ledger) => ({ id: "c1", author: ledger.owner })),
          remove: () => Effect.void
        }
      }
    })
    const needsCaller = Effect.runSync(makeCards)
    const served: Bundle.Served = Client.erase(Client.directDispatch(needsCaller))
    // @ts-expect-error Ledger is not one of the caller's services a face provides
    const refused: Bundle.Served = Client.erase(Client.directDispatch(needsLedger))
    const options: McpFace.Options = {
      core: { surface: Cards, expose: Expose.all(Cards) },
      // @ts-expect-error a face's clients may need the caller's services and nothing else
      client: Effect.succeed({ core: Client.erase(Client.directDispatch(needsLedger)), clients: {} })
    }
    assert.isDefined(served)
    assert.isDefined(refused)
    assert.isDefined(options)
  })
})
