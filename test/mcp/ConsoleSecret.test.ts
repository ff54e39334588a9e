// The console's key: a held call is decided only by whoever opened the link the server printed (its key
// in the fragment, kept by the page's tab and sent by its script to its own origin), never by another
// process on this machine, which can reach the page's address, read whatever it serves, set any header
// it likes, and run a server on another port that collects whatever the operator's browser sends it.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Fiber, Schedule } from "effect"
import { McpConsole } from "effect-surface/mcp"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { open } from "./browser.ts"
import { serveWithConsole } from "./consoleServed.ts"

// An agent's call the console holds, waiting (forked) for a decision.
const heldCall = (url: string, console: McpConsole.Console["Service"]) =>
  Effect.gen(function*() {
    const client = new Client({ name: "agent", version: "1.0.0" })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
      () => Effect.promise(() => client.close())
    )
    const calling = yield* Effect.forkChild(
      Effect.promise(() =>
        client.callTool({ name: "tasks_add", arguments: { title: "approved by myself" } }) as Promise<CallToolResult>
      )
    )
    const held = yield* console.state.snapshot.pipe(
      Effect.flatMap((s) => s.held[0] === undefined ? Effect.fail("not yet") : Effect.succeed(s.held[0])),
      Effect.retry(Schedule.spaced("20 millis")),
      Effect.timeout("10 seconds")
    )
    return { calling, id: held.id }
  })

const get = (url: URL | string, headers: Record<string, string> = {}) =>
  Effect.promise(() => fetch(url, { headers, redirect: "manual" }))

const textOf = (response: Response) => Effect.promise(() => response.text())

const postDecision = (page: URL, id: string, headers: Record<string, string>) =>
  Effect.promise(() =>
    fetch(`${page.href}/decide`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: page.origin, "sec-fetch-site": "same-origin", ...headers },
      body: JSON.stringify({ id, decision: "allow" })
    })
  )

// A dev server an agent runs on another loopback port: whatever the operator's browser sends it, it keeps.
const devServer = Effect.acquireRelease(
  Effect.callback<
    { readonly server: NodeHttp.Server; readonly sent: Array<NodeHttp.IncomingHttpHeaders & { url: string }> }
  >(
    (resume) => {
      const sent: Array<NodeHttp.IncomingHttpHeaders & { url: string }> = []
      const server = NodeHttp.createServer((request, response) => {
        sent.push({ ...request.headers, url: request.url ?? "" })
        response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>dev</title>")
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, sent })))
    }
  ),
  // The operator's browser keeps its connections alive: cut them, or the close waits on them.
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.close(() => resume(Effect.void))
      server.closeAllConnections()
    })
).pipe(Effect.map(({ sent, server }) => ({ sent, port: (server.address() as AddressInfo).port })))

// The console's stream, read until its snapshot: the page's token comes first.
const streamed = (page: URL, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(`${page.href}/events`, { headers })
    let text = ""
    const reader = response.body?.getReader()
    const decoder = new TextDecoder()
    while (response.ok && !text.includes("event: snapshot")) {
      const chunk = await reader?.read()
      if (chunk === undefined || chunk.done) break
      text += decoder.decode(chunk.value)
    }
    await reader?.cancel()
    return { status: response.status, text, token: /"token":"([^"]+)"/.exec(text)?.[1] ?? "" }
  })

describe("the console's key", () => {
  it.live("a local process that reads the page and sets its own Origin cannot approve the call it is held on", () =>
    Effect.gen(function*() {
      const { console, page, served } = yield* serveWithConsole({ hold: ["tasks_add"] })
      const { calling, id } = yield* heldCall(served.url, console)
      yield* Effect.addFinalizer(() => Effect.asVoid(console.decide(id, "deny", "the test")))
      // Everything such a process can fetch: the page at its address is a shell holding nothing.
      const answer = yield* get(page)
      const html = yield* textOf(answer)
      assert.strictEqual(answer.status, 200)
      assert.include(html, "link")
      assert.notInclude(html, "tasks_add", "no held call's details without the key")
      assert.notMatch(html, /TOKEN = "[^"]+"/, "no page token without the key")
      for (const headers of [{}, { "x-console-key": "guessed" }]) {
        const stream = yield* streamed(page, headers)
        assert.strictEqual(stream.status, 403)
        assert.notInclude(stream.text, "tasks_add")
        assert.strictEqual((yield* postDecision(page, id, { ...headers, "x-console-token": "guessed" })).status, 403)
      }
      // Still waiting: nothing it sent let the call run.
      yield* Effect.sleep("100 millis")
      assert.isUndefined(calling.pollUnsafe())
      assert.strictEqual((yield* console.state.snapshot).held.length, 1)
      yield* console.decide(id, "deny", "the test")
      const refused = yield* Fiber.join(calling)
      assert.isTrue(refused.isError)
    }))

  it.live("the printed link carries its key in the fragment, which no request sends, and the stream and decisions need it", () =>
    Effect.gen(function*() {
      const { console, key, link, page, served } = yield* serveWithConsole({ hold: ["tasks_add"] })
      assert.strictEqual(link.search, "")
      assert.match(link.hash, /^#key=[\w-]{32,}$/)
      const stream = yield* streamed(page, { "x-console-key": key })
      assert.strictEqual(stream.status, 200)
      assert.match(stream.text, /^event: page\n/, "the page's token comes first")
      const token = stream.token
      const { calling, id } = yield* heldCall(served.url, console)
      // The key without the stream's token, and the token without the key, are each refused.
      assert.strictEqual((yield* postDecision(page, id, { "x-console-key": key })).status, 403)
      assert.strictEqual((yield* postDecision(page, id, { "x-console-token": token })).status, 403)
      assert.strictEqual(
        (yield* postDecision(page, id, { "x-console-key": key, "x-console-token": token })).status,
        200
      )
      const added = yield* Fiber.join(calling)
      assert.isNotTrue(added.isError, JSON.stringify(added.content))
    }))

  it.live("a key set in the options opens the console of every instance sharing it, and a short or spaced one is refused", () =>
    Effect.gen(function*() {
      const key = "k".repeat(16) + "e".repeat(16)
      const a = yield* serveWithConsole({ key })
      const b = yield* serveWithConsole({ key })
      assert.strictEqual(a.key, key)
      assert.strictEqual((yield* streamed(b.page, { "x-console-key": a.key })).status, 200)
      const other = yield* serveWithConsole()
      assert.strictEqual((yield* streamed(other.page, { "x-console-key": key })).status, 403)
      for (
        const [given, says] of [["too-short", "at least 32 characters"], [`${key} spaced`, "printable ASCII"]] as const
      ) {
        const refused = yield* Effect.exit(McpConsole.make({ key: given }))
        assert.strictEqual(refused._tag, "Failure")
        assert.include(String(refused._tag === "Failure" ? refused.cause : ""), says)
      }
    }))

  it.live(
    "a process holding all the operator's browser sends to another port of this host cannot read held calls or decide",
    () =>
      Effect.gen(function*() {
        const { console, key, link, page, served } = yield* serveWithConsole({ hold: ["tasks_add"] })
        const operator = yield* open(link.href)
        yield* Effect.promise(() => operator.locator("#live.on").waitFor())
        const { calling, id } = yield* heldCall(served.url, console)
        yield* Effect.addFinalizer(() => Effect.asVoid(console.decide(id, "deny", "the test")))
        yield* Effect.promise(() => operator.locator("[data-held]", { hasText: "tasks_add" }).waitFor())
        // The operator opens the agent's dev server in the console's own tab; it sends the browser to
        // its own copies of every console address and keeps what the browser sends with each.
        const foreign = yield* devServer
        for (const path of ["", "/", "/events", "/decide"]) {
          yield* Effect.promise(() => operator.goto(`http://127.0.0.1:${foreign.port}${page.pathname}${path}`))
        }
        assert.deepStrictEqual(
          foreign.sent.map((sent) => sent.url).filter((url) => url.startsWith(page.pathname)),
          ["", "/", "/events", "/decide"].map((path) => `${page.pathname}${path}`)
        )
        assert.notInclude(JSON.stringify(foreign.sent), key, "the key never reaches another port")
        assert.deepStrictEqual(yield* Effect.promise(() => operator.evaluate("Object.keys(sessionStorage)")), [])
        // All of it, replayed against the console's own port, with the page's origin set.
        const cookie = foreign.sent.map((sent) => sent.cookie).find((c) => c !== undefined) ?? ""
        const html = yield* textOf(yield* get(page, { cookie }))
        assert.notInclude(html, "tasks_add")
        const token = /const TOKEN = "([^"]+)"/.exec(html)?.[1] ?? "none"
        const stream = yield* get(`${page.href}/events?token=${token}`, { cookie })
        yield* Effect.promise(() => stream.body?.cancel() ?? Promise.resolve())
        assert.strictEqual(stream.status, 403)
        assert.strictEqual((yield* postDecision(page, id, { cookie, "x-console-token": token })).status, 403)
        yield* Effect.sleep("100 millis")
        assert.isUndefined(calling.pollUnsafe())
        yield* console.decide(id, "deny", "the test")
        assert.isTrue((yield* Fiber.join(calling)).isError)
      }),
    60_000
  )

  it.live(
    "the operator's browser opens the printed link (or its older ?key= form) and lands on the plain page, live, holding no cookie",
    () =>
      Effect.gen(function*() {
        const { key, link, page: plain } = yield* serveWithConsole()
        for (const address of [link.href, `${plain.href}?key=${key}`]) {
          const page = yield* open(address)
          yield* Effect.promise(() => page.locator("#live.on").waitFor())
          assert.strictEqual(page.url(), plain.href, "the key leaves the address bar")
          assert.deepStrictEqual(yield* Effect.promise(() => page.context().cookies()), [])
          assert.include(yield* Effect.promise(() => page.evaluate("Object.values(sessionStorage)")), key)
          // Another tab opened at the plain address holds no key: it is told to open the link.
          const other = yield* Effect.promise(() => page.context().newPage())
          yield* Effect.promise(() => other.goto(plain.href))
          yield* Effect.promise(() => other.locator("#notice", { hasText: "open that link" }).waitFor())
          assert.notStrictEqual(yield* Effect.promise(() => other.locator("#live").getAttribute("class")), "on")
        }
      }),
    60_000
  )
})
