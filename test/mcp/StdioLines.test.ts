import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { PassThrough } from "node:stream"
import * as StdioLines from "../../src/mcp/transport/stdioLines.ts"

const limit = 12

// Lines as a host writes them (some past the bound, the last maybe unterminated), and where the
// pipe happens to cut the bytes into chunks.
const Lines = Schema.Array(
  Schema.String.check(Schema.isMaxLength(30)).pipe(Schema.check(Schema.makeFilter((s) => !s.includes("\n"))))
)
const Cuts = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 400 })))

const read = (chunks: ReadonlyArray<Buffer>) => {
  const lines: Array<string> = []
  const dropped: Array<number> = []
  const reader = StdioLines.lineReader(limit, (line) => lines.push(line), (bytes) => dropped.push(bytes))
  for (const chunk of chunks) reader.push(chunk)
  reader.end()
  return { lines, dropped }
}

// What a line reads as: its UTF-8 decoded (a lone surrogate is not UTF-8), a CRLF ending is a line
// ending, and a blank line carries nothing.
const readAs = (line: string) => Buffer.from(line).toString().replace(/\r$/, "")

describe("lineReader", () => {
  it.prop(
    "however the bytes are cut into chunks, every line within the bound is read whole and in order, and each longer one is dropped and reported by its size",
    [Lines, Cuts, Schema.Boolean],
    ([lines, cuts, terminated]) => {
      const tail = terminated || lines.length === 0 ? "" : "tail"
      const encoded = lines.map((line) => Buffer.from(`${line}\n`))
      const bytes = Buffer.concat([...encoded, Buffer.from(tail)])
      const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
      const chunks = [0, ...at].map((from, i) => bytes.subarray(from, [...at, bytes.length][i])).filter((chunk) =>
        chunk.length > 0
      )
      const kept = lines.filter((_, i) => encoded[i]!.length <= limit).map(readAs).filter((line) => line !== "")
      // Cut where the pipe cut, and not at all (every line in one chunk).
      for (const given of [chunks, [bytes]]) {
        const read_ = read(given)
        assert.deepStrictEqual(read_.lines, tail === "" ? kept : [...kept, tail])
        assert.deepStrictEqual(read_.dropped, encoded.map((line) => line.length).filter((size) => size > limit))
      }
    }
  )

  it("a line split across many chunks is read once it ends, and one past the bound is dropped whether it arrives in pieces or between two good lines of one chunk", () => {
    const text = "abc\ndefghijklmnopqrstu\nxy\r\n"
    for (const chunks of [Array.from(text, (c) => Buffer.from(c)), [Buffer.from(text)]]) {
      const { dropped, lines } = read(chunks)
      assert.deepStrictEqual(lines, ["abc", "xy"])
      assert.deepStrictEqual(dropped, [19])
    }
  })

  it("a multi-byte character cut between two chunks is read whole", () => {
    const bytes = Buffer.from("\"é€𝄞\"\n")
    for (let cut = 1; cut < bytes.length; cut++) {
      assert.deepStrictEqual(read([bytes.subarray(0, cut), bytes.subarray(cut)]).lines, ["\"é€𝄞\""])
    }
  })
})

describe("the stdio transport", () => {
  it.effect("each line is one message in order, a line that is not a JSON-RPC message is reported and skipped, and the input's end is told once every line was read", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      const { ended, transport } = StdioLines.make(input, output, 1024, () => undefined)
      const messages: Array<unknown> = []
      const errors: Array<string> = []
      transport.onmessage = (message) => void messages.push(message)
      transport.onerror = (error) => void errors.push(error.message)
      yield* Effect.promise(() => transport.start())
      input.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n[1]\n{\"id\":2}\n")
      input.end("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
      yield* Effect.promise(() => ended)
      assert.deepStrictEqual(messages, [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", method: "notifications/initialized" }
      ])
      assert.deepStrictEqual(errors, [
        "a line on stdin that is not a JSON-RPC 2.0 message: not json",
        "a line on stdin that is not a JSON-RPC 2.0 message: [1]",
        "a line on stdin that is not a JSON-RPC 2.0 message: {\"id\":2}"
      ])
      yield* Effect.promise(() => transport.send({ jsonrpc: "2.0", id: 1, result: {} }))
      assert.strictEqual(output.read()?.toString(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")
    }))
})
