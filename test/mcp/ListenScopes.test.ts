// `subscriptions/listen` is held to what the same caller may do otherwise, and bounded: over HTTP
// behind the resource server with the official v2 client (raw requests where the client cannot say
// it), a URI needs the scope its 2025 subscribe needs (refused 403 with the challenge otherwise), a
// caller is told a list moved only when what it is shown of it moved, a request names at most the
// subscription cap of URIs and each must name something, one holder keeps at most so many streams
// open, and an open stream counts among the requests in flight.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpHttp } from "effect-surface/mcp"
import { serverOptionsOver } from "../../examples/board/app.ts"
import * as BoardState from "../../examples/board/state.ts"
import { overHttp, raw } from "./modern.ts"
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

  it.live("an open listen stream counts among the requests in flight: past maxRequestsInFlight a listen is refused 503", () =>
    Effect.gen(function*() {
      const { url } = yield* serveBoard({ maxRequestsInFlight: 2 })
      const reader = yield* connectAs(url, "pin", "reader")
      const admin = yield* connectAs(url, "pin", "admin")
      const first = yield* Effect.promise(() => reader.listen({ toolsListChanged: true }))
      yield* Effect.promise(() => admin.listen({ toolsListChanged: true }))
      const busy = yield* rawListen(url, "guest", [publicFile])
      assert.strictEqual(busy.status, 503)
      assert.match(busy.answer.error?.message ?? "", /requests are in flight/)
      yield* Effect.promise(() => first.close())
      yield* Effect.sleep("300 millis")
      assert.isTrue((yield* attempt(() => reader.listen({ toolsListChanged: true }))).ok)
    }))
})
