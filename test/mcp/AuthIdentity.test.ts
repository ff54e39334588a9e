// A surface procedure reads who is calling it: behind the resource server the token's subject, and
// everywhere nothing is authenticated (one channel as stdio serves it, in both eras; an in-memory
// host; the command line; a toolset's local entry; a wire served with `Caller.none`) the explicit
// local caller. The example's cards, which only their author may remove, show per-object
// authorization decided by the procedure itself; a procedure needing anything beyond the caller's
// services is refused where the bundle is built.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/client"
import { Context, Effect, Exit, Layer, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Caller, Client, Engine, Expose, Identity, Implementation, Store } from "effect-surface"
import type { Bundle } from "effect-surface"
import { Cli } from "effect-surface/cli"
import { Cards, makeCards } from "../../examples/auth/cards.ts"
import { McpToolset } from "effect-surface/client"
import { McpAuth, McpConnection, McpFace, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import { Wire } from "effect-surface/wire"
import { failedWith, runCli } from "../cli/harness.ts"
import * as AuthIssuer from "./authIssuer.ts"
import { call, connect, textOf } from "./harness.ts"
import { connect as connectModern, overHttp } from "./modern.ts"

/** The example's cards, one already pinned by ada. */
const adasCard = makeCards([["c0", { author: "ada", text: "ada's own" }]])

const optionsOver = (cards: Effect.Success<typeof adasCard>): McpFace.Options => ({
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

/** The author of a card, as its item resource reads. */
const authorIn = (read: { readonly contents: ReadonlyArray<unknown> }) =>
  (JSON.parse((read.contents[0] as { readonly text: string }).text) as { readonly author: string }).author

describe("a procedure reads its caller", () => {
  it.live("behind the resource server a card is removed by its author alone: another subject gets the declared refusal, in both eras", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* McpHttp.serve({ ...optionsOver(yield* adasCard), http: { port: 0 } }).pipe(
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
        const pinned = yield* Effect.promise(() => asAda.callTool({ name: "card_pin", arguments: { text: mode } }))
        const { id } = pinned.structuredContent as { readonly id: string }
        const uri = `surface://collections/cards/${id}`
        assert.strictEqual(authorIn(yield* Effect.promise(() => asBo.readResource({ uri }))), "ada")
        const refused = yield* Effect.promise(() => asBo.callTool({ name: "card_remove", arguments: { id } }))
        assert.isTrue(refused.isError)
        assert.strictEqual(textIn(refused), `effect-surface: only ada may remove card ${id}`)
        assert.deepStrictEqual(refused.structuredContent, { _tag: "NotYourCard", id, author: "ada" })
        const own = yield* Effect.promise(() => asBo.callTool({ name: "card_pin", arguments: { text: "bo's" } }))
        const ownUri = `surface://collections/cards/${(own.structuredContent as { readonly id: string }).id}`
        assert.strictEqual(authorIn(yield* Effect.promise(() => asBo.readResource({ uri: ownUri }))), "bo")
        const removed = yield* Effect.promise(() => asAda.callTool({ name: "card_remove", arguments: { id } }))
        assert.notStrictEqual(removed.isError, true, textIn(removed))
        const gone = yield* Effect.promise(() => asAda.callTool({ name: "card_remove", arguments: { id } }))
        assert.deepStrictEqual(gone.structuredContent, { _tag: "NoSuchCard", id })
      }
    }))

  it.live("on one channel, as stdio serves it, a 2025 and a 2026 client are both the local caller", () =>
    Effect.gen(function*() {
      const face = yield* McpFace.make(optionsOver(yield* adasCard))
      for (const mode of ["legacy", "auto"] as const) {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
        yield* McpConnection.connect(face, serverSide)
        const client = yield* connectModern(clientSide, mode)
        assert.strictEqual(client.getProtocolEra(), mode === "legacy" ? "legacy" : "modern")
        const pinned = yield* Effect.promise(() => client.callTool({ name: "card_pin", arguments: { text: mode } }))
        const uri = `surface://collections/cards/${(pinned.structuredContent as { readonly id: string }).id}`
        assert.strictEqual(authorIn(yield* Effect.promise(() => client.readResource({ uri }))), "local")
        const refused = yield* Effect.promise(() => client.callTool({ name: "card_remove", arguments: { id: "c0" } }))
        assert.deepStrictEqual(refused.structuredContent, { _tag: "NotYourCard", id: "c0", author: "ada" })
      }
    }))

  it.live("from an in-memory host and from the command line the same procedure sees the local caller", () =>
    Effect.gen(function*() {
      const options = optionsOver(yield* adasCard)
      const host = yield* connect(options)
      const byHost = yield* call(host, "card_pin", { text: "from a host" })
      assert.deepStrictEqual(byHost.structuredContent, { id: "c1" })
      const read = yield* Effect.promise(() => host.client.readResource({ uri: "surface://collections/cards/c1" }))
      assert.strictEqual(authorIn(read), "local")
      const refused = yield* call(host, "card_remove", { id: "c0" })
      assert.isTrue(refused.isError)
      assert.strictEqual(textOf(refused), "effect-surface: only ada may remove card c0")
      const cards = (argv: ReadonlyArray<string>) => runCli(Cli.run({ ...options, name: "cards" }, argv))
      const byShell = yield* cards(["card", "pin", "--text", "typed"])
      assert.isTrue(Exit.isSuccess(byShell.exit))
      assert.strictEqual(byShell.stdout, `{"id":"c2"}\n`)
      // Pinned from a host, removed from the shell: the same local caller.
      assert.isTrue(Exit.isSuccess((yield* cards(["card", "remove", "--id", "c1"])).exit))
      const notMine = yield* cards(["card", "remove", "--id", "c0"])
      assert.isDefined(failedWith(notMine.exit))
      assert.include(notMine.stderr, "only ada may remove card c0")
    }))

  it.live("a toolset's local entry calls the procedure as the local caller, or as the caller it is given", () =>
    Effect.gen(function*() {
      const core = yield* Layer.build(Engine.layerBundle(optionsOver(yield* adasCard)))
      const local = yield* McpToolset.make([{ name: "cards", type: "local", core }])
      assert.deepStrictEqual((yield* local.call("cards__card_pin", { text: "mine" })).structuredContent, { id: "c1" })
      yield* local.call("cards__card_remove", { id: "c1" })
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
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "cards-"))),
        (made) => Effect.sync(() => Fs.rmSync(made, { recursive: true, force: true }))
      )
      const path = Path.join(dir, "s.sock")
      const cards = yield* adasCard
      yield* Wire.serve(cards, { path, expose: Expose.all(Cards) }).pipe(Effect.provideContext(Caller.none))
      const dialled = (yield* Wire.dial(Cards, { path })).client
      assert.deepStrictEqual(yield* dialled.procedures.card.pin({ text: "over the wire" }), { id: "c1" })
      const card = yield* dialled.collections.cards.get("c1")
      assert.strictEqual(Option.getOrThrow(card).author, "local")
      const refused = yield* Effect.flip(dialled.procedures.card.remove({ id: "c0" }))
      assert.strictEqual(refused._tag, "NotYourCard")
    }))

  it("a procedure needing anything beyond the caller's services does not compile into a bundle", () => {
    class Ledger extends Context.Service<Ledger, { readonly owner: string }>()("test/Ledger") {}
    const needsLedger = Implementation.make(Cards, {
      collections: { cards: Effect.runSync(Store.make()) },
      procedures: {
        card: {
          pin: () => Effect.map(Effect.service(Ledger), (ledger) => ({ id: ledger.owner })),
          remove: () => Effect.void
        }
      }
    })
    const served: Bundle.Served = Client.erase(Client.directDispatch(Effect.runSync(adasCard)))
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
