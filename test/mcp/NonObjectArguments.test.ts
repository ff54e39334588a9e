// A tool whose input is not an object takes it as `{ value }`; a caller that sends the bare value
// instead (`arguments: 41`), or any other arguments that are not an object, is answered with one
// sentence saying so, the same in either revision, never a validator's multi-line text.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpConnection, McpFace } from "effect-surface/mcp"
import { PassThrough } from "node:stream"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { serverOptions } from "../../examples/board/app.ts"
import { envelope } from "./modern.ts"

interface Answer {
  readonly id?: number
  readonly result?: { readonly isError?: boolean; readonly content?: ReadonlyArray<{ readonly text?: string }> }
  readonly error?: { readonly code: number; readonly message: string }
}

/** The board on an in-process stdio channel: write lines, read its answers. */
const served = Effect.gen(function*() {
  const face = yield* McpFace.make(yield* serverOptions)
  const input = new PassThrough()
  const output = new PassThrough()
  const answers: Array<Answer> = []
  let buffered = ""
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString()
    const lines = buffered.split("\n")
    buffered = lines.pop() ?? ""
    for (const line of lines) if (line !== "") answers.push(JSON.parse(line) as Answer)
  })
  yield* McpConnection.connect(face, new StdioServerTransport(input, output))
  const send = (...messages: ReadonlyArray<unknown>) =>
    Effect.sync(() => void input.write(messages.map((m) => `${JSON.stringify(m)}\n`).join("")))
  const answerTo = (id: number) =>
    Effect.gen(function*() {
      for (let i = 0; i < 200; i++) {
        const found = answers.find((answer) => answer.id === id)
        if (found !== undefined) return found
        yield* Effect.sleep("10 millis")
      }
      return assert.fail(`no answer to ${id}`)
    })
  return { send, answerTo }
})

const said = (answer: Answer) => answer.error?.message ?? answer.result?.content?.[0]?.text ?? ""

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bare", version: "1.0.0" } }
}

describe("arguments that are not an object", () => {
  it.live("on a 2025 session, a bare value for a non-object input is answered with one sentence", () =>
    Effect.gen(function*() {
      const { answerTo, send } = yield* served
      yield* send(initialize, { jsonrpc: "2.0", method: "notifications/initialized" })
      yield* answerTo(1)
      for (const [id, value] of [[2, 41], [3, "t1"], [4, [1]], [5, null]] as const) {
        yield* send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "tasks_complete", arguments: value } })
        const answer = yield* answerTo(id)
        const text = said(answer)
        assert.notInclude(text, "\n", `one sentence for ${JSON.stringify(value)}: ${text}`)
        assert.include(text, `"params.arguments" must be an object, got`, text)
        assert.include(text, `{ "value": … }`, text)
      }
      // The call written as its input asks still works.
      yield* send({
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: "tasks_complete", arguments: { value: "t404" } }
      })
      assert.include(said(yield* answerTo(6)), "t404")
    }).pipe(Effect.scoped))

  it.live("on 2026-07-28, the same is answered with one sentence", () =>
    Effect.gen(function*() {
      const { answerTo, send } = yield* served
      yield* send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "tasks_complete", arguments: 41, _meta: envelope() }
      })
      const text = said(yield* answerTo(2))
      assert.notInclude(text, "\n", text)
      assert.include(
        text,
        `"params.arguments" must be an object, got 41 (a tool whose input is one value takes it as { "value": … })`,
        text
      )
    }).pipe(Effect.scoped))
})
