// A client may write several messages before the server has looked at the first: a script piping its
// requests into a stdio server, a 2026 client starting concurrent calls. The first decides the
// revision, and the ones behind it must be served in order, not dropped while that is decided.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect } from "effect"
import { McpConnection, McpFace } from "effect-surface/mcp"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { serverOptions } from "../../examples/board/app.ts"
import { envelope } from "./modern.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pipe", version: "1.0.0" } }
} as const
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" } as const
const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list" } as const
const listResources = { jsonrpc: "2.0", id: 3, method: "resources/list" } as const

const modern = (id: number, method: string) => ({ jsonrpc: "2.0", id, method, params: { _meta: envelope() } }) as const

/** The board's face on an in-memory channel; `send` writes messages back to back, `answered` waits for `ids`. */
const channel = Effect.gen(function*() {
  const face = yield* McpFace.make(yield* serverOptions)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const received: Array<JSONRPCMessage> = []
  const all = yield* Deferred.make<void>()
  let awaited: ReadonlyArray<number> = []
  const check = () => {
    const ids = new Set(received.map((message) => "id" in message ? message.id : undefined))
    if (awaited.length > 0 && awaited.every((id) => ids.has(id))) Deferred.doneUnsafe(all, Effect.void)
  }
  clientSide.onmessage = (message) => {
    received.push(message)
    check()
  }
  yield* Effect.promise(() => clientSide.start())
  yield* McpConnection.connect(face, serverSide)
  const send = (messages: ReadonlyArray<JSONRPCMessage>) =>
    Effect.sync(() => {
      // Not awaited one by one: the in-memory transport hands each over as it is written.
      for (const message of messages) void clientSide.send(message)
    })
  const answered = (ids: ReadonlyArray<number>) =>
    Effect.sync(() => {
      awaited = ids
      check()
    }).pipe(Effect.andThen(Deferred.await(all)), Effect.as(received))
  return { send, answered }
})

const idsOf = (messages: ReadonlyArray<JSONRPCMessage>) =>
  messages.flatMap((message) => "id" in message && ("result" in message || "error" in message) ? [message.id] : [])

/**
 * The example's stdio server as a host spawns it: `writes` written one after another (each after
 * its delay), stdin ended once `ids` are all answered; every answer it wrote.
 */
const stdioAnswers = (
  writes: ReadonlyArray<{ readonly messages: ReadonlyArray<unknown>; readonly after?: number }>,
  ids: ReadonlyArray<number>
) =>
  Effect.callback<ReadonlyArray<{ readonly id?: unknown; readonly result?: unknown }>>((resume) => {
    const child = spawn(process.execPath, ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"], {
      cwd: root,
      stdio: ["pipe", "pipe", "ignore"]
    })
    const answers: Array<{ readonly id?: unknown; readonly result?: unknown }> = []
    let buffered = ""
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split("\n")
      buffered = lines.pop() ?? ""
      for (const line of lines.filter((line) => line.trim() !== "")) answers.push(JSON.parse(line))
      if (ids.every((id) => answers.some((answer) => answer.id === id))) child.stdin.end()
    })
    child.on("exit", () => resume(Effect.succeed(answers)))
    const timers = writes.map(({ after, messages }) =>
      setTimeout(() => {
        child.stdin.write(messages.map((m) => JSON.stringify(m)).join("\n") + "\n")
      }, after ?? 0)
    )
    return Effect.sync(() => {
      timers.forEach(clearTimeout)
      child.kill()
    })
  }).pipe(Effect.timeout("60 seconds"))

describe("messages written before the first is looked at", () => {
  it.live("a 2025 client's requests written behind its initialize are all answered, in order", () =>
    Effect.gen(function*() {
      const { send, answered } = yield* channel
      yield* send([initialize, initialized, listTools, listResources])
      const messages = yield* answered([1, 2, 3]).pipe(Effect.timeout("20 seconds"))
      assert.deepStrictEqual(idsOf(messages), [1, 2, 3])
      assert.isTrue(messages.every((message) => !("error" in message)))
    }).pipe(Effect.scoped))

  it.live("a 2026 client's concurrent requests written together are all answered", () =>
    Effect.gen(function*() {
      const { send, answered } = yield* channel
      yield* send([modern(1, "server/discover"), modern(2, "tools/list"), modern(3, "resources/list")])
      const messages = yield* answered([1, 2, 3]).pipe(Effect.timeout("20 seconds"))
      assert.sameMembers(idsOf(messages), [1, 2, 3])
      assert.isTrue(messages.every((message) => !("error" in message)))
    }).pipe(Effect.scoped))

  it.live(
    "a stdio server given its requests in one write answers every one of them",
    () =>
      Effect.map(
        stdioAnswers([{ messages: [initialize, initialized, listTools, listResources] }], [1, 2, 3]),
        (answers) => {
          assert.deepStrictEqual(answers.map((answer) => answer.id), [1, 2, 3])
        }
      ),
    { timeout: 90_000 }
  )
})

// A client that asks `server/discover` and hears nothing within its deadline (the AI SDK waits one
// second over stdio) writes `initialize` on the same pipe: the discovery must not have chosen 2026.
describe("a discovery chooses no era", () => {
  const discover = modern(1, "server/discover")
  const opening = { ...initialize, id: 2 }
  const listed = { ...listTools, id: 3 }

  it.live("a discovery followed by initialize on the same connection is answered, and a 2025 session opens", () =>
    Effect.gen(function*() {
      const { send, answered } = yield* channel
      yield* send([discover])
      yield* send([opening, initialized, listed])
      const messages = yield* answered([1, 2, 3]).pipe(Effect.timeout("20 seconds"))
      const byId = new Map<unknown, unknown>(
        messages.map((message) => ["id" in message ? message.id : undefined, message])
      )
      assert.deepInclude((byId.get(1) as { readonly result: { readonly supportedVersions: unknown } }).result, {
        supportedVersions: ["2026-07-28"]
      })
      assert.strictEqual(
        (byId.get(2) as { readonly result: { readonly protocolVersion: string } }).result.protocolVersion,
        "2025-11-25"
      )
      assert.isTrue("result" in (byId.get(3) as object), JSON.stringify(byId.get(3)))
    }).pipe(Effect.scoped))

  it.live("an initialize after a 2026 request is refused in a sentence naming the connection's era and every version served", () =>
    Effect.gen(function*() {
      const { send, answered } = yield* channel
      yield* send([discover, modern(3, "tools/list"), opening])
      const messages = yield* answered([1, 2, 3]).pipe(Effect.timeout("20 seconds"))
      const refused = messages.find((message) => "id" in message && message.id === 2) as {
        readonly error: { readonly message: string }
      }
      assert.match(refused.error.message, /this connection speaks 2026-07-28/)
      assert.match(refused.error.message, /2026-07-28, 2025-11-25, 2025-06-18/)
    }).pipe(Effect.scoped))

  it.live(
    "a stdio server asked server/discover, then initialize after the client's deadline, serves the 2025 session",
    () =>
      // As a client whose discovery deadline passed: initialize on the same pipe, whatever came back.
      Effect.map(
        stdioAnswers([{ messages: [discover] }, { messages: [opening, initialized, listed], after: 200 }], [1, 2, 3]),
        (answers) => {
          assert.sameMembers(answers.map((answer) => answer.id), [1, 2, 3])
          assert.isTrue(answers.every((answer) => answer.result !== undefined), JSON.stringify(answers))
        }
      ),
    { timeout: 90_000 }
  )
})
