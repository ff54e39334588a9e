// `subscriptions/listen` is held to what the same caller may do otherwise, and bounded: over HTTP
// behind the resource server with the official v2 client (raw requests where the client cannot say
// it), a URI needs the scope its 2025 subscribe needs (refused 403 with the challenge otherwise), a
// caller is told a list moved only when what it is shown of it moved, a request names at most the
// subscription cap of URIs and each must name something, one holder keeps at most so many streams
// open, and an open stream counts among the requests in flight.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Identity } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import * as Http from "node:http"
import { serverOptionsOver } from "../../examples/board/app.ts"
import * as BoardState from "../../examples/board/state.ts"
import * as Listen from "../../src/mcp/v2026/internal/listen.ts"
import { envelope, overHttp, raw } from "./modern.ts"
import {
  connectAs,
  extraFile,
  filesTable,
  publicFile,
  secretFile,
  serveScoped,
  type Token,
  uris
} from "./scopedFiles.ts"

const task = { title: "write the report", done: false, createdAt: new Date(0) }

/** The board and its files, with task t1 on the board. */
const serveBoard = (http: McpHttp.HttpOptions = {}) =>
  Effect.tap(serveScoped(http), ({ state }) => state.setTask("t1", task))

const attempt = <A>(run: () => Promise<A>) =>
  Effect.match(Effect.tryPromise(run), {
    onFailure: (error) => ({ ok: false as const, why: String(error.cause) }),
    onSuccess: (value) => ({ ok: true as const, value })
  })

// A raw listen (one a client would be refused for, so its answer is one JSON body, its id null when
// refused before the request was read as one).
const rawListen = (url: string, token: Token, resourceSubscriptions: ReadonlyArray<string>) =>
  Effect.map(
    raw(url, 11, "subscriptions/listen", { notifications: { resourceSubscriptions } }, {}, {
      authorization: `Bearer ${token}`
    }),
    ({ messages, status }) => ({
      status,
      answer: messages[0] as { readonly error?: { readonly code: number; readonly message: string } }
    })
  )

const waitFor = (done: () => boolean) =>
  Effect.promise(async () => {
    for (let waited = 0; waited < 3000 && !done(); waited += 20) await new Promise((r) => setTimeout(r, 20))
  })

const scoped = [
  "surface://cells/focus",
  "surface://collections/tasks/t1",
  uris.docs,
  uris.raw,
  uris.query,
  secretFile
]

describe("a listen asks what a subscribe asks", () => {
  it.live("each URI a listen names needs the scope its 2025 subscribe needs: refused without it, followed with it", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBoard()
      const guest = yield* connectAs(url, "pin", "guest")
      const reader = yield* connectAs(url, "pin", "reader")
      const legacyGuest = yield* connectAs(url, "legacy", "guest")
      for (const uri of scoped) {
        const subscribed = yield* attempt(() => legacyGuest.subscribeResource({ uri }))
        assert.isFalse(subscribed.ok, uri)
        const listened = yield* attempt(() => guest.listen({ resourceSubscriptions: [publicFile, uri] }))
        assert.isFalse(listened.ok, `${uri} was listened to without its scope`)
        const answered = yield* rawListen(url, "guest", [uri])
        assert.strictEqual(answered.status, 403, uri)
        assert.match(
          answered.answer.error?.message ?? "",
          new RegExp(`resource ${uri.replace(/[?]/g, "\\?")} needs scope`)
        )
        const followed = yield* attempt(() => reader.listen({ resourceSubscriptions: [uri] }))
        assert.isTrue(followed.ok, uri)
        if (followed.ok) {
          assert.deepStrictEqual(followed.value.honoredFilter.resourceSubscriptions, [uri])
          yield* Effect.promise(() => followed.value.close())
        }
      }
      // What needs no scope is followed by any caller.
      const open = yield* attempt(() => guest.listen({ resourceSubscriptions: [publicFile] }))
      assert.isTrue(open.ok)
      if (open.ok) yield* Effect.promise(() => open.value.close())
    }))

  it.live("a caller with a token is told a list moved only when what it is shown of that list moved", () =>
    Effect.gen(function*() {
      const { changed, served, url } = yield* serveBoard()
      const heard = { guest: [] as Array<string>, reader: [] as Array<string> }
      for (const token of ["guest", "reader"] as const) {
        const client = yield* connectAs(url, "pin", token)
        client.setNotificationHandler("notifications/resources/list_changed", (notification) => {
          heard[token].push(notification.method)
        })
        yield* Effect.promise(() => client.listen({ resourcesListChanged: true, toolsListChanged: true }))
      }
      // A file only `files:read` may see: the reader's list moved, the guest's did not.
      yield* served.face.setResources(filesTable(changed, [extraFile]))
      yield* waitFor(() => heard.reader.length > 0)
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(heard, { guest: [], reader: ["notifications/resources/list_changed"] })
      // A file any caller may see: both lists moved.
      yield* served.face.setResources(filesTable(changed, [extraFile, "files://open"]))
      yield* waitFor(() => heard.guest.length > 0 && heard.reader.length > 1)
      assert.deepStrictEqual(heard.guest, ["notifications/resources/list_changed"])
      assert.strictEqual(heard.reader.length, 2)
    }))
})

describe("a listen is bounded", () => {
  it.live("a listen naming more URIs than the subscription cap is refused -32602 in a sentence", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBoard({ maxSubscriptionsPerSession: 3 })
      const over = yield* rawListen(url, "reader", [uris.docs, uris.raw, uris.query, publicFile])
      assert.strictEqual(over.answer.error?.code, -32602)
      assert.match(over.answer.error?.message ?? "", /names 4 URIs; one listen request may follow at most 3/)
      const reader = yield* connectAs(url, "pin", "reader")
      const within = yield* attempt(() => reader.listen({ resourceSubscriptions: [uris.docs, uris.raw, uris.query] }))
      assert.isTrue(within.ok)
      // The default is the 2025 cap: 256.
      const defaults = yield* serveBoard()
      const many = Array.from({ length: 257 }, (_, i) => `files://docs/${i}`)
      const refused = yield* rawListen(defaults.url, "reader", many)
      assert.match(refused.answer.error?.message ?? "", /names 257 URIs; one listen request may follow at most 256/)
    }))

  it.live("a URI that names nothing, or an item its collection does not hold, is refused -32602 naming it", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBoard()
      for (const uri of ["files://nothing", "surface://cells/nothing", "surface://collections/tasks/t404"]) {
        const answered = yield* rawListen(url, "reader", [publicFile, uri])
        assert.strictEqual(answered.answer.error?.code, -32602, uri)
        assert.include(answered.answer.error?.message ?? "", uri)
      }
      const reader = yield* connectAs(url, "pin", "reader")
      const refused = yield* attempt(() => reader.listen({ resourceSubscriptions: ["surface://collections/tasks/t9"] }))
      assert.isFalse(refused.ok)
      if (!refused.ok) assert.include(refused.why, "surface://collections/tasks/t9")
    }))

  it.live("one holder keeps at most maxListenStreamsPerHolder streams open; another holder is not held back", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBoard({ maxListenStreamsPerHolder: 2 })
      const reader = yield* connectAs(url, "pin", "reader")
      const first = yield* Effect.promise(() => reader.listen({ toolsListChanged: true }))
      yield* Effect.promise(() => reader.listen({ toolsListChanged: true }))
      const third = yield* attempt(() => reader.listen({ toolsListChanged: true }))
      assert.isFalse(third.ok)
      if (!third.ok) assert.match(third.why, /Too many listen streams: this caller holds 2 open/)
      const admin = yield* connectAs(url, "pin", "admin")
      assert.isTrue((yield* attempt(() => admin.listen({ toolsListChanged: true }))).ok)
      // A stream ended is given back.
      yield* Effect.promise(() => first.close())
      yield* Effect.sleep("300 millis")
      assert.isTrue((yield* attempt(() => reader.listen({ toolsListChanged: true }))).ok)
    }))

  it.live("without authorization the holder of a listen stream is the connection's peer", () =>
    Effect.gen(function*() {
      const served = yield* McpHttp.serve({
        ...serverOptionsOver(yield* BoardState.memory),
        http: { port: 0, maxListenStreamsPerHolder: 1 }
      })
      const first = yield* overHttp(served.url, "pin")
      const second = yield* overHttp(served.url, "pin")
      const open = yield* Effect.promise(() => first.listen({ toolsListChanged: true }))
      const refused = yield* attempt(() => second.listen({ toolsListChanged: true }))
      assert.isFalse(refused.ok)
      if (!refused.ok) assert.match(refused.why, /Too many listen streams: this caller holds 1 open/)
      yield* Effect.promise(() => open.close())
      yield* Effect.sleep("300 millis")
      assert.isTrue((yield* attempt(() => second.listen({ toolsListChanged: true }))).ok)
    }))

  it.live("listen streams left open never keep requests out: past maxRequestsInFlight of them, other requests are still served", () =>
    Effect.gen(function*() {
      const served = yield* McpHttp.serve({
        ...serverOptionsOver(yield* BoardState.memory),
        http: { port: 0, maxRequestsInFlight: 4, maxListenStreamsPerHolder: 3 }
      })
      // Three peers, three idle streams each: more than the requests served at once.
      for (const peer of ["127.0.0.2", "127.0.0.3", "127.0.0.4"]) {
        for (let n = 0; n < 3; n++) assert.strictEqual(yield* openListen(served.url, peer), 200, `${peer} #${n}`)
      }
      const victim = yield* overHttp(served.url, "pin")
      const listed = yield* attempt(() => victim.listTools())
      assert.isTrue(listed.ok, listed.ok ? "" : listed.why)
    }))

  it.live("past maxListenStreams open in all, a listen is refused 503 in a sentence while other requests are still served", () =>
    Effect.gen(function*() {
      const served = yield* McpHttp.serve({
        ...serverOptionsOver(yield* BoardState.memory),
        http: { port: 0, maxListenStreams: 3 }
      })
      for (const peer of ["127.0.0.2", "127.0.0.3", "127.0.0.4"]) {
        assert.strictEqual(yield* openListen(served.url, peer), 200, peer)
      }
      const client = yield* overHttp(served.url, "pin")
      const refused = yield* attempt(() => client.listen({ toolsListChanged: true }))
      assert.isFalse(refused.ok)
      if (!refused.ok) {
        assert.match(
          refused.why,
          /Too many listen streams: the server holds 3 open, the most it keeps \(maxListenStreams\)/
        )
      }
      assert.isTrue((yield* attempt(() => client.listTools())).ok)
    }))

  it.live("a listen past the URI cap is refused -32602 before the scope of any URI it names is looked up", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBoard({ maxSubscriptionsPerSession: 3 })
      // The guest lacks files:read for the secret file: the cap refuses it first.
      const over = yield* rawListen(url, "guest", [secretFile, uris.docs, uris.raw, uris.query, uris.docs])
      assert.strictEqual(over.status, 200)
      assert.strictEqual(over.answer.error?.code, -32602)
      assert.match(over.answer.error?.message ?? "", /names 4 URIs; one listen request may follow at most 3/)
      // Within the cap (a URI named twice counts once), the scope is asked for.
      const within = yield* rawListen(url, "guest", [secretFile, secretFile])
      assert.strictEqual(within.status, 403)
    }))

  it.live("a 2025 batch carrying more requests than would be admitted is refused 503 before its scopes are looked up", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBoard({ maxRequestsInFlight: 2 })
      // The guest may call none of these tools: with the batch too large, it is told so first.
      const batch = [1, 2, 3].map((id) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "board_progress", arguments: {} }
      }))
      const response = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: "Bearer guest"
          },
          body: JSON.stringify(batch)
        })
      )
      assert.strictEqual(response.status, 503)
      assert.include(
        yield* Effect.promise(() => response.text()),
        "this batch carries 3 requests, more than the 2 served at once"
      )
    }))

  it("without a token, an IPv6 peer is held by its /64 and an IPv4-mapped one by its IPv4", () => {
    const holder = (peer: string) => Listen.holderOf(Identity.local, peer)
    assert.strictEqual(holder("2001:db8:1:2::1"), holder("2001:db8:1:2:ffff:ffff:ffff:ffff"))
    assert.strictEqual(holder("2001:db8:1:2::1"), holder("2001:0DB8:0001:0002:0:0:0:9%eth0"))
    assert.notStrictEqual(holder("2001:db8:1:2::1"), holder("2001:db8:1:3::1"))
    assert.strictEqual(holder("::ffff:127.0.0.2"), holder("127.0.0.2"))
    assert.notStrictEqual(holder("127.0.0.2"), holder("127.0.0.3"))
  })
})

// A listen for list moves sent from `localAddress` and left open: its HTTP status, once the stream
// has been acknowledged (or the refusal's once answered). The stream is ended with the test's scope.
const openListen = (url: string, localAddress: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly status: number; readonly request: Http.ClientRequest }>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "subscriptions/listen",
          params: { notifications: { toolsListChanged: true }, _meta: envelope() }
        })
        const request = Http.request(url, {
          method: "POST",
          localAddress,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "subscriptions/listen"
          }
        }, (response) => {
          const status = response.statusCode ?? 0
          if (status !== 200) return resolve({ status, request })
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => {
            if (chunk.includes("notifications/subscriptions/acknowledged")) resolve({ status, request })
          })
        })
        request.on("error", reject)
        request.end(body)
      })
    ),
    ({ request }) => Effect.sync(() => request.destroy())
  ).pipe(Effect.map(({ status }) => status))
