// Garbage, truncated and oversized frames, on both doors: over stdio (raw bytes written to the real
// example process's stdin between the SDK client's own frames) and over Streamable HTTP (requests
// each on a connection of its own, and raw sockets, against `McpHttp.serve` on a loopback port).
// After each, the next well-formed request — a real SDK client call — is served.
import { assert, describe, it } from "@effect/vitest"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Result } from "effect"
import * as Crypto from "node:crypto"
import * as NodeHttp from "node:http"
import * as Net from "node:net"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { callTool, connectHttp, postHeaders } from "./http.ts"
import { quiet } from "./resources.ts"
import { startStdio, type StdioServer } from "./stdio.ts"

/** The SDK's stdio frame bound: an unterminated line longer than this is where its transport gives up. */
const sdkFrameBound = 10 * 1024 * 1024

const line = (text: string) => `${text}\n`

/** A well-formed request, cut short: each cut is one truncated frame. */
const wellFormed = JSON.stringify({
  jsonrpc: "2.0",
  id: "cut",
  method: "tools/call",
  params: { name: "tasks_add", arguments: { title: "cut" } }
})
const truncations = [1, 7, 16, 31, 48, 64, wellFormed.length - 2].map((n) => wellFormed.slice(0, n))

/** Every kind of bad stdio frame, each a list of raw writes (every one ending its line). */
const stdioGarbage: ReadonlyArray<readonly [string, ReadonlyArray<string | Uint8Array>]> = [
  [
    "invalid JSON lines",
    ["hello world", "{", "}{", "{'single': 'quotes'}", "NaN", "undefined", "{\"a\":1,}"].map(line)
  ],
  ["truncated JSON", truncations.map(line)],
  ["empty and whitespace-only lines", ["\n", "\n\n\n", " \t \n", "\r\n"]],
  ["binary noise", [Crypto.randomBytes(64 * 1024), "\n", new Uint8Array([0, 0xff, 0xfe, 0x80, 0x0d, 0x0a]), "\n"]],
  [
    "valid JSON that is not JSON-RPC",
    [
      "{\"hello\":\"world\"}",
      "[]",
      "[1,2,3]",
      "42",
      "null",
      "true",
      "\"a string\"",
      "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"tools/list\"}",
      "{\"jsonrpc\":\"2.0\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/list\"}",
      "{\"jsonrpc\":\"2.0\",\"method\":5}"
    ].map(line)
  ],
  [
    "JSON-RPC the server cannot use (unknown method, stray response, unknown notification, bad params)",
    [
      JSON.stringify({ jsonrpc: "2.0", id: "stray-1", method: "no/such/method" }),
      JSON.stringify({ jsonrpc: "2.0", id: "stray-2", result: {} }),
      JSON.stringify({ jsonrpc: "2.0", id: "stray-3", error: { code: 1, message: "x" } }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/no-such" }),
      JSON.stringify({ jsonrpc: "2.0", id: "stray-4", method: "tools/call", params: "not an object" }),
      JSON.stringify({ jsonrpc: "2.0", id: "stray-5", method: "resources/read", params: { uri: 42 } })
    ].map(line)
  ],
  ["a 10 MB line of garbage (under the SDK's 10 MiB frame bound)", [line("x".repeat(10_000_000))]],
  ["a 10 MB line of valid JSON that is not JSON-RPC", [line(JSON.stringify({ blob: "y".repeat(10_000_000 - 20) }))]]
]

const assertServes = (server: StdioServer, after: string, within = 10_000) =>
  Effect.gen(function*() {
    const answer = yield* Effect.tryPromise(() =>
      server.client.callTool({ name: "tasks_add", arguments: { title: `after ${after}` } }, undefined, {
        timeout: within
      }) as Promise<CallToolResult>
    ).pipe(Effect.result)
    const exit = server.exit()
    assert.isTrue(
      Result.isSuccess(answer),
      `after ${after}: the next call failed (${
        Result.isFailure(answer) ? String(answer.failure.cause ?? answer.failure) : ""
      }); ` +
        `the server process ${
          exit === undefined ? "is still alive" : `exited with code ${exit.code} signal ${exit.signal}`
        }; ` +
        `its stderr: ${server.stderr().trim().split("\n").slice(-3).join(" | ") || "(empty)"}`
    )
    if (Result.isSuccess(answer)) {
      assert.isUndefined(answer.success.isError, `after ${after}: ${JSON.stringify(answer.success.content)}`)
      assert.match(JSON.stringify(answer.success.structuredContent), /"id":"t\d+"/)
    }
  })

describe("garbage on stdio", () => {
  it.live(
    "each kind of garbage, truncated or 10 MB frame written to stdin leaves the stdio server answering the next SDK call, and its stdout carries nothing but JSON-RPC",
    () =>
      Effect.gen(function*() {
        const server = yield* startStdio
        yield* assertServes(server, "start")
        for (const [kind, writes] of stdioGarbage) {
          for (const bytes of writes) yield* Effect.promise(() => server.transport.write(bytes))
          yield* assertServes(server, kind)
        }
        // Every frame on stdout parsed as JSON-RPC: the garbage produced no stray output.
        assert.strictEqual(server.transport.strayLines, 0)
        assert.isUndefined(server.exit())
      }),
    { timeout: 60_000 }
  )

  // The SDK's stdio transport closed itself on a line past its 10 MiB buffer, leaving a process that
  // answered nothing until its host closed stdin. The server's own transport drops such a line whole.
  it.live(
    "a line longer than the SDK's 10 MiB frame bound is refused, and the stdio server answers the next SDK call",
    () =>
      Effect.gen(function*() {
        const server = yield* startStdio
        yield* assertServes(server, "start")
        yield* Effect.promise(() => server.transport.write(line("z".repeat(sdkFrameBound + 1024))))
        yield* assertServes(server, "a line over 10 MiB", 3_000)
      }),
    { timeout: 60_000 }
  )
})

/** What one request on a connection of its own came back with, or the network error that ended it. */
type Sent =
  | {
    readonly _tag: "Answered"
    readonly status: number
    readonly headers: NodeHttp.IncomingHttpHeaders
    readonly body: string
  }
  | { readonly _tag: "Reset"; readonly code: string }

/**
 * One HTTP request on a fresh connection (no agent, no pooling), so a connection the server closes
 * after refusing garbage is never handed to the next request. `chunks` are written one by one with no
 * declared length (chunked transfer encoding).
 */
const sendAlone = (url: string, init: {
  readonly method: string
  readonly headers: Record<string, string>
  readonly body?: string | Uint8Array
  readonly chunks?: ReadonlyArray<Uint8Array>
}) =>
  Effect.callback<Sent>((resume) => {
    const request = NodeHttp.request(url, { method: init.method, headers: init.headers, agent: false }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        body += chunk
      })
      response.on("end", () =>
        resume(Effect.succeed({ _tag: "Answered", status: response.statusCode ?? 0, headers: response.headers, body })))
      response.on("error", (error: NodeJS.ErrnoException) =>
        resume(Effect.succeed({ _tag: "Reset", code: error.code ?? String(error) })))
    })
    request.on("error", (error: NodeJS.ErrnoException) =>
      resume(Effect.succeed({ _tag: "Reset", code: error.code ?? String(error) })))
    if (init.chunks !== undefined) {
      for (const chunk of init.chunks)
        request.write(chunk)
    }
    request.end(init.body)
    return Effect.sync(() =>
      request.destroy()
    )
  })

/** One raw HTTP exchange on a fresh loopback socket: what came back before the server closed it (or we gave up). */
const rawExchange = (
  port: number,
  writes: ReadonlyArray<string | Uint8Array>,
  then: "end" | "destroy",
  within = 3_000
) =>
  Effect.callback<string>((resume) => {
    let got = ""
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resume(Effect.succeed(got))
    }
    const socket = Net.connect(port, "127.0.0.1", () => {
      for (const bytes of writes) socket.write(bytes)
      if (then === "end") socket.end()
      else setTimeout(() => socket.destroy(), 50)
    })
    const timer = setTimeout(finish, within)
    socket.on("data", (chunk: Buffer) => {
      got += chunk.toString("latin1")
    })
    socket.on("close", finish)
    socket.on("error", finish)
  })

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0)

describe("garbage on Streamable HTTP", () => {
  it.live(
    "garbage, truncated and oversized bodies, wrong content types and wrong methods are each refused with a 4xx (never a 5xx) and the next SDK call on a standing session is served",
    () =>
      Effect.gen(function*() {
        const served = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0, maxBodyBytes: 1024 * 1024 } })
        const standing = yield* connectHttp(served.url, "standing")
        const session = standing.sessionId
        const json = postHeaders(session)
        const tooBig = JSON.stringify({
          jsonrpc: "2.0",
          id: "big",
          method: "tools/call",
          params: { name: "tasks_add", arguments: { title: "b".repeat(2 * 1024 * 1024) } }
        })
        const quarterMiB = new Uint8Array(256 * 1024).fill(0x61)
        type Case = {
          readonly method: string
          readonly headers: Record<string, string>
          readonly body?: string | Uint8Array
          readonly chunks?: ReadonlyArray<Uint8Array>
        }
        // [what, request, the statuses that are a correct refusal]
        const cases: ReadonlyArray<readonly [string, Case, ReadonlyArray<number>]> = [
          ["invalid JSON", { method: "POST", headers: json, body: "{nope" }, [400]],
          ["an empty body", { method: "POST", headers: json, body: "" }, [400]],
          ["a truncated body", { method: "POST", headers: json, body: truncations[4] ?? "{" }, [400]],
          ["binary noise", { method: "POST", headers: json, body: Crypto.randomBytes(4096) }, [400]],
          ["invalid UTF-8", { method: "POST", headers: json, body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }, [400]],
          ["a JSON object that is not JSON-RPC", { method: "POST", headers: json, body: "{\"hello\":1}" }, [400]],
          ["a JSON number", { method: "POST", headers: json, body: "42" }, [400]],
          ["JSON null", { method: "POST", headers: json, body: "null" }, [400]],
          ["a batch of garbage", { method: "POST", headers: json, body: "[1,\"two\",{}]" }, [400]],
          ["an oversized body (declared length)", { method: "POST", headers: json, body: tooBig }, [413]],
          ["an oversized body (streamed, no length)", {
            method: "POST",
            headers: json,
            chunks: Array.from({ length: 8 }, () => quarterMiB)
          }, [413]],
          ["text/plain", { method: "POST", headers: { ...json, "content-type": "text/plain" }, body: "{}" }, [415]],
          ["no content type", {
            method: "POST",
            headers: { accept: json["accept"] ?? "", "mcp-session-id": session },
            body: "{}"
          }, [415]],
          ["multipart/form-data", {
            method: "POST",
            headers: { ...json, "content-type": "multipart/form-data; boundary=x" },
            body: "--x--"
          }, [415]],
          ["an Accept without event streams", {
            method: "POST",
            headers: { ...json, accept: "text/html" },
            body: JSON.stringify({ jsonrpc: "2.0", id: "a", method: "tools/list" })
          }, [406]],
          ["a garbage protocol version", {
            method: "POST",
            headers: { ...json, "mcp-protocol-version": "garbage" },
            body: JSON.stringify({ jsonrpc: "2.0", id: "v", method: "tools/list" })
          }, [400]],
          ["an unknown session id", {
            method: "POST",
            headers: postHeaders(crypto.randomUUID()),
            body: JSON.stringify({ jsonrpc: "2.0", id: "u", method: "tools/list" })
          }, [404]],
          ["no session id", {
            method: "POST",
            headers: postHeaders(),
            body: JSON.stringify({ jsonrpc: "2.0", id: "n", method: "tools/list" })
          }, [400]],
          ["a second initialize on the session", {
            method: "POST",
            headers: json,
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: "i",
              method: "initialize",
              params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "again", version: "1" } }
            })
          }, [400]],
          ["PUT", { method: "PUT", headers: json, body: "{}" }, [405]],
          ["PATCH", { method: "PATCH", headers: json, body: "{}" }, [405]],
          ["OPTIONS", { method: "OPTIONS", headers: json }, [405]],
          ["HEAD", { method: "HEAD", headers: json }, [405]],
          ["TRACE", { method: "TRACE", headers: json }, [405]],
          ["a GET that does not accept event streams", {
            method: "GET",
            headers: { "mcp-session-id": session, accept: "application/json" }
          }, [406]],
          ["a foreign Host", { method: "POST", headers: { ...json, host: "evil.example" }, body: "{}" }, [403]]
        ]
        for (const [what, init, refusals] of cases) {
          const sent = yield* sendAlone(served.url, init)
          if (sent._tag === "Reset") {
            // An oversized body is refused before it is all read and its connection closed: a client
            // still uploading may see the reset before the 413 (the exact 413 is checked on a raw
            // socket below). Any other request must be answered.
            assert.isTrue(
              refusals.includes(413) && (sent.code === "ECONNRESET" || sent.code === "EPIPE"),
              `${what}: the connection was reset (${sent.code})`
            )
          } else {
            assert.include(refusals, sent.status, `${what}: answered ${sent.status} ${sent.body.slice(0, 200)}`)
            if (init.method !== "HEAD") {
              const parsed = JSON.parse(sent.body) as { readonly jsonrpc: unknown; readonly id: unknown }
              // A refusal that read the request names its id (as 2026-07-28 requires); one that did not, none.
              const asked = typeof init.body === "string" ? (() => {
                try {
                  return (JSON.parse(init.body) as { readonly id?: unknown }).id
                } catch {
                  return undefined
                }
              })() : undefined
              assert.strictEqual(parsed.jsonrpc, "2.0", `${what}: ${sent.body.slice(0, 200)}`)
              assert.isTrue(parsed.id === null || parsed.id === asked, `${what}: ${sent.body.slice(0, 200)}`)
            }
            if (sent.status === 405) assert.strictEqual(sent.headers["allow"], "GET, POST, DELETE")
          }
          const next = yield* callTool(standing.client, "tasks_add", { title: `after ${what}` })
          assert.isTrue(
            Result.isSuccess(next) && next.success.isError === undefined,
            `after ${what}: ${JSON.stringify(next)}`
          )
        }

        const port = served.port
        const head = (length: number | "chunked") =>
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `mcp-session-id: ${session}\r\nmcp-protocol-version: 2025-11-25\r\n` +
          (length === "chunked" ? "Transfer-Encoding: chunked\r\n\r\n" : `Content-Length: ${length}\r\n\r\n`)
        const request = JSON.stringify({ jsonrpc: "2.0", id: "raw", method: "tools/list" })
        // An oversized declared length is answered 413 before any of the body is sent.
        const declared = yield* rawExchange(port, [head(64 * 1024 * 1024)], "end")
        assert.strictEqual(statusOf(declared), 413, declared.slice(0, 200))
        assert.include(declared, "Payload Too Large")
        const rawCases: ReadonlyArray<readonly [string, ReadonlyArray<string | Uint8Array>, "end" | "destroy"]> = [
          ["a body shorter than its Content-Length, then the client half-closes", [head(1000), request], "end"],
          ["a body shorter than its Content-Length, then the connection drops", [head(1000), request], "destroy"],
          ["headers cut off mid-line", [`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Ty`], "destroy"],
          ["a garbage request line", ["\u0000\u0001\u00ff GARBAGE\r\n\r\n"], "end"],
          ["binary noise instead of HTTP", [Crypto.randomBytes(8192)], "end"],
          ["an oversized header", [
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`
          ], "end"],
          ["an oversized chunked body", [
            head("chunked"),
            ...Array.from({ length: 6 }, () => `40000\r\n${"a".repeat(0x40000)}\r\n`),
            "0\r\n\r\n"
          ], "end"],
          ["a chunk that never ends", [head("chunked"), "ffff\r\nabc"], "destroy"]
        ]
        for (const [what, writes, then] of rawCases) {
          const raw = yield* rawExchange(port, writes, then)
          const status = statusOf(raw)
          // No answer at all (the client went away first) is fine; an answer must not be a server error.
          assert.isTrue(status === 0 || (status >= 400 && status < 500), `${what}: answered ${raw.slice(0, 120)}`)
          const next = yield* callTool(standing.client, "tasks_add", { title: `after ${what}` })
          assert.isTrue(
            Result.isSuccess(next) && next.success.isError === undefined,
            `after ${what}: ${JSON.stringify(next)}`
          )
        }

        // The standing session survived all of it, and a new host can still connect and call.
        assert.include(yield* served.sessions, session)
        const fresh = yield* connectHttp(served.url, "fresh")
        const listed = yield* Effect.promise(() => fresh.client.listTools())
        assert.include(listed.tools.map((t) => t.name), "tasks_add")
      }).pipe(Effect.provide(quiet)),
    { timeout: 60_000 }
  )

  // DEFECT (see the report): a body refused mid-stream (chunked, past maxBodyBytes) is answered 413
  // with `Connection: keep-alive`, and then the server closes the connection. A pooling client (the
  // SDK's fetch) may send its next request on it and lose it ("other side closed"): seen in this
  // file's garbage test before it moved each garbage request to a connection of its own.
  it.live(
    "a body refused mid-stream is answered 413, and its connection either says it closes or serves the next request",
    () =>
      Effect.gen(function*() {
        const served = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0, maxBodyBytes: 1024 * 1024 } })
        const port = served.port
        const exchange = yield* Effect.callback<
          { readonly first: string; readonly rest: string; readonly closedBeforeSecond: boolean }
        >((resume) => {
          const socket = Net.connect(port, "127.0.0.1")
          let got = ""
          let first = ""
          let closedBeforeSecond = false
          let secondSent = false
          socket.on("data", (chunk: Buffer) => {
            got += chunk.toString("latin1")
          })
          const done = () =>
            resume(Effect.succeed({ first: first || got, rest: got.slice(first.length), closedBeforeSecond }))
          socket.on("close", () => {
            if (!secondSent) closedBeforeSecond = true
            done()
          })
          socket.on("error", () => {})
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
              `Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n`
          )
          let sentChunks = 0
          const pace = setInterval(() => {
            if (sentChunks++ < 6) return void socket.write(`40000\r\n${"a".repeat(0x40000)}\r\n`)
            clearInterval(pace)
            socket.write("0\r\n\r\n")
            // Once the 413 is in, the next request on the same connection, as a pooling client would.
            setTimeout(() => {
              first = got
              if (socket.destroyed) return
              secondSent = true
              socket.write(`DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nmcp-session-id: none\r\n\r\n`)
              setTimeout(() => socket.end(), 500)
            }, 200)
          }, 20)
          const timer = setTimeout(() => socket.destroy(), 5_000)
          return Effect.sync(() => {
            clearInterval(pace)
            clearTimeout(timer)
            socket.destroy()
          })
        })
        assert.strictEqual(statusOf(exchange.first), 413, exchange.first.slice(0, 200))
        const announced = /^connection: *(\S+)/im.exec(exchange.first)?.[1]?.toLowerCase()
        if (announced !== "close") {
          assert.isFalse(
            exchange.closedBeforeSecond,
            `the 413 said "Connection: ${announced}" but the server closed the connection before the next request`
          )
          assert.strictEqual(
            statusOf(exchange.rest),
            400,
            `the next request on the kept-alive connection: ${exchange.rest.slice(0, 200)}`
          )
        }
      }).pipe(Effect.provide(quiet)),
    { timeout: 30_000 }
  )
})
