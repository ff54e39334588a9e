import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { PassThrough } from "node:stream"
import { boundLines } from "../../src/mcp/transport/stdioLines.ts"

const limit = 12

// Lines as a host writes them (some past the bound, the last maybe unterminated), and where the
// pipe happens to cut the bytes into chunks.
const Lines = Schema.Array(
  Schema.String.check(Schema.isMaxLength(30)).pipe(Schema.check(Schema.makeFilter((s) => !s.includes("\n"))))
)
const Cuts = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 400 })))

const read = (chunks: ReadonlyArray<Buffer>) =>
  Effect.callback<{ readonly out: Buffer; readonly dropped: ReadonlyArray<number> }>((resume) => {
    const source = new PassThrough()
    const dropped: Array<number> = []
    const lines = boundLines(source, limit, (bytes) => dropped.push(bytes))
    const out: Array<Buffer> = []
    lines.on("data", (bytes: Buffer) => out.push(bytes))
    lines.once("end", () => resume(Effect.succeed({ out: Buffer.concat(out), dropped })))
    for (const chunk of chunks) source.write(chunk)
    source.end()
  })

describe("boundLines", () => {
  it.effect.prop(
    "however the bytes are cut into chunks, every line within the bound passes whole and in order, and each longer one is dropped and reported by its size",
    [Lines, Cuts, Schema.Boolean],
    ([lines, cuts, terminated]) =>
      Effect.gen(function*() {
        const tail = terminated || lines.length === 0 ? [] : [Buffer.from("tail")]
        const encoded = lines.map((line) => Buffer.from(`${line}\n`))
        const bytes = Buffer.concat([...encoded, ...tail])
        const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
        const chunks = [0, ...at].map((from, i) => bytes.subarray(from, [...at, bytes.length][i])).filter((chunk) =>
          chunk.length > 0
        )
        // Cut where the pipe cut, and not at all (every line in one chunk).
        for (const given of [chunks, [bytes]]) {
          const { out, dropped } = yield* read(given)
          assert.isTrue(out.equals(Buffer.concat([...encoded.filter((line) => line.length <= limit), ...tail])))
          assert.deepStrictEqual(dropped, encoded.map((line) => line.length).filter((size) => size > limit))
        }
      })
  )

  it.effect("a line split across many chunks passes once it ends, and one past the bound is dropped whether it arrives in pieces or between two good lines of one chunk", () =>
    Effect.gen(function*() {
      const text = "abc\ndefghijklmnopqrstu\nxy\n"
      for (const chunks of [Array.from(text, (c) => Buffer.from(c)), [Buffer.from(text)]]) {
        const { dropped, out } = yield* read(chunks)
        assert.strictEqual(out.toString(), "abc\nxy\n")
        assert.deepStrictEqual(dropped, [19])
      }
    }))
})
