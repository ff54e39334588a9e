// What the Streamable HTTP face refuses before a session sees a request: foreign Host and Origin
// headers (DNS rebinding), oversized bodies, malformed JSON. Raw HTTP, since `fetch` may not set Host.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Result, Schema } from "effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Http from "node:http"
import { McpHttp } from "effect-surface/mcp"
import * as HttpChecks from "../../src/mcp/transport/HttpChecks.ts"
import { serverOptions } from "../../examples/board/app.ts"

const serveBoard = (http: McpHttp.HttpOptions = {}) =>
  Effect.flatMap(serverOptions, (options) => McpHttp.serve({ ...options, http: { port: 0, ...http } }))

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "guard-test", version: "1.0.0" } }
})

interface Answer {
  readonly status: number
  readonly body: string
}

/** One request with exactly the headers given (Host included), answered with its whole body. */
const request = (url: string, headers: Record<string, string>, body: string = initialize) =>
  Effect.callback<Answer>((resume) => {
    const req = Http.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      agent: false
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on(
        "end",
        () => resume(Effect.succeed({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
      )
    })
    req.on("error", (error) => resume(Effect.die(error)))
    req.end(body)
  })

const errorCode = (answer: Answer): number | undefined => {
  const parsed: unknown = JSON.parse(answer.body)
  return typeof parsed === "object" && parsed !== null && "error" in parsed && typeof parsed.error === "object" &&
      parsed.error !== null &&
      "code" in parsed.error && typeof parsed.error.code === "number"
    ? parsed.error.code
    : undefined
}

describe("MCP over Streamable HTTP: refusals before a session", () => {
  it.live("a foreign Host or Origin is refused (403, JSON-RPC error) and the loopback names with the bound port are served", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard()
      const port = served.port
      assert.isAbove(port, 0)
      assert.strictEqual(served.url, `http://127.0.0.1:${port}/mcp`)
      for (
        const host of ["evil.example.com", `evil.example.com:${port}`, `localhost:${port + 1}`, "127.0.0.1.nip.io"]
      ) {
        const refused = yield* request(served.url, { host, origin: `http://${host}` })
        assert.strictEqual(refused.status, 403, host)
        assert.strictEqual(errorCode(refused), -32000)
      }
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, "localhost"]) {
        const served_ = yield* request(served.url, { host, origin: `http://${host}` })
        assert.strictEqual(served_.status, 200, host)
        assert.include(served_.body, "\"protocolVersion\"")
      }
      // A loopback Host does not excuse a foreign page.
      const foreignPage = yield* request(served.url, { host: `localhost:${port}`, origin: "https://evil.example.com" })
      assert.strictEqual(foreignPage.status, 403)
      assert.strictEqual(yield* Effect.map(served.sessions, (ids) => ids.length), 4)
    }))

  it.live("configured allow-lists replace the loopback defaults, and protection can be turned off", () =>
    Effect.gen(function*() {
      const listed = yield* serveBoard({
        allowedHosts: ["mcp.example.test"],
        allowedOrigins: ["https://app.example.test"]
      })
      const host = `mcp.example.test:${listed.port}`
      assert.strictEqual((yield* request(listed.url, { host, origin: "https://app.example.test" })).status, 200)
      assert.strictEqual((yield* request(listed.url, { host: `localhost:${listed.port}` })).status, 403)
      assert.strictEqual((yield* request(listed.url, { host, origin: `http://localhost:${listed.port}` })).status, 403)

      const open = yield* serveBoard({ dnsRebindingProtection: false })
      assert.strictEqual(
        (yield* request(open.url, { host: "evil.example.com", origin: "http://evil.example.com" })).status,
        200
      )
    }))

  it.live("an oversized body is 413 with a JSON-RPC error, refused by its declared length or as soon as it streams past the bound", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard({ maxBodyBytes: 1024 })
      const padded = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { padding: "x".repeat(4096) }
      })
      const declared = yield* request(served.url, { host: `127.0.0.1:${served.port}` }, padded)
      assert.strictEqual(declared.status, 413)
      assert.strictEqual(errorCode(declared), -32000)

      // No length declared: a body of 64 MiB produced on demand, of which the server reads little.
      // Counted by the web stream's pull callback, outside any fiber.
      const pulled = { bytes: 0 }
      const chunk = new Uint8Array(16 * 1024).fill(0x20)
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          if (pulled.bytes >= 64 * 1024 * 1024) return controller.close()
          pulled.bytes += chunk.byteLength
          controller.enqueue(chunk)
        }
      })
      const streamed = yield* Effect.promise(() =>
        fetch(served.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body,
          // Node's fetch needs `duplex` for a streamed body; the DOM `RequestInit` type lacks it.
          duplex: "half"
        } as RequestInit)
      )
      assert.strictEqual(streamed.status, 413)
      assert.strictEqual(
        (yield* Effect.promise(() => streamed.json() as Promise<{ error: { code: number } }>)).error.code,
        -32000
      )
      // Answered long before the body ended: what the client had produced by then is what socket
      // buffers took in (a few MiB on loopback), not the 64 MiB a read-it-all server would wait for.
      assert.isBelow(pulled.bytes, 16 * 1024 * 1024)
      assert.deepStrictEqual(yield* served.sessions, [])
    }))

  it.live("malformed JSON is a -32700 parse error, and the next request is served", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard()
      const host = `127.0.0.1:${served.port}`
      for (const garbage of ["{\"jsonrpc\": \"2.0\", ", "not json at all", ""]) {
        const refused = yield* request(served.url, { host }, garbage)
        assert.strictEqual(refused.status, 400)
        assert.strictEqual(errorCode(refused), -32700)
      }
      const next = yield* request(served.url, { host })
      assert.strictEqual(next.status, 200)
      assert.include(next.body, "\"serverInfo\"")
    }))
})

describe("rebinding protection on other loopback binds", () => {
  it("every spelling of a loopback address is loopback, and the bound address is one of the names served", () => {
    for (const host of ["127.0.0.2", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "LOCALHOST"]) {
      assert.isTrue(HttpChecks.isLoopback(host), host)
    }
    assert.isFalse(HttpChecks.isLoopback("0.0.0.0"))
    assert.isFalse(HttpChecks.isLoopback("localhost.evil.com"))
    const allow = HttpChecks.allowFor({ host: "127.0.0.2", port: 4000 })
    assert.isTrue(Option.isNone(HttpChecks.checkHeaders(allow, { host: "127.0.0.2:4000" })))
    assert.isTrue(Option.isNone(HttpChecks.checkHeaders(allow, { host: "localhost:4000" })))
    assert.isTrue(Option.isSome(HttpChecks.checkHeaders(allow, { host: "evil.example:4000" })))
  })
})

// Bytes near a JSON body: the text of any JSON value, maybe after a byte-order mark, maybe with
// arbitrary bytes (broken UTF-8 included) in its place or after it.
const body = Schema.Struct({
  bom: Schema.Boolean,
  value: Schema.Json,
  noise: Schema.Uint8Array,
  shape: Schema.Literals(["json", "json then noise", "noise"])
})

const bytesOf = ({ bom, noise, shape, value }: typeof body.Type): Uint8Array => {
  const text = new TextEncoder().encode(JSON.stringify(value))
  const parts = [bom ? [0xef, 0xbb, 0xbf] : [], shape === "noise" ? [] : [...text], shape === "json" ? [] : [...noise]]
  return new Uint8Array(parts.flat())
}

// What the body says as the web platform reads it: TextDecoder's UTF-8, then JSON.parse.
const reference = (bytes: Uint8Array): Result.Result<unknown, string> => {
  try {
    return Result.succeed(JSON.parse(new TextDecoder().decode(bytes)))
  } catch {
    return Result.fail("Parse error: Invalid JSON")
  }
}

const requestOf = (bytes: Uint8Array, declared: boolean) =>
  HttpServerRequest.fromWeb(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: declared ? { "content-length": String(bytes.byteLength) } : {},
      body: bytes
    })
  )

describe("reading a body as JSON", () => {
  it.effect.prop(
    "any bytes read as the web platform reads them: the same value, or a -32700 parse error, whether the length is declared or streamed",
    { sent: body },
    ({ sent }) =>
      Effect.gen(function*() {
        const bytes = bytesOf(sent)
        const expected = reference(bytes)
        for (const declared of [true, false]) {
          const read = yield* Effect.result(HttpChecks.readJson(requestOf(bytes, declared), 1024 * 1024))
          if (Result.isSuccess(expected)) {
            assert.isTrue(Result.isSuccess(read), `declared ${declared}`)
            assert.deepStrictEqual(Result.getOrUndefined(read), expected.success, `declared ${declared}`)
          } else assert.isTrue(Result.isFailure(read) && read.failure.code === -32700, `declared ${declared}`)
        }
      }),
    { arbitrary: { runs: 300 } }
  )
})
