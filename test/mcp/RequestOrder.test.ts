// Requests on one connection that depend on each other take effect in the order they arrived: a
// host that subscribes and at once (before the subscribe's answer) calls a tool that changes what it
// subscribed to hears of the change. Driven as a host drives the README's stdio command: a real child
// process, its requests written back to back on its stdin.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

interface Message {
  readonly id?: number
  readonly method?: string
  readonly params?: { readonly uri?: string }
  readonly result?: unknown
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "order", version: "1.0.0" } }
}
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const tasks = "surface://collections/tasks"

/** Write `lines` at once to a fresh stdio server and read its messages until `done` holds (or 20 s pass). */
const exchange = (lines: ReadonlyArray<unknown>, done: (messages: ReadonlyArray<Message>) => boolean) =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      ChildProcess.spawn(process.execPath, ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"], {
        cwd: root,
        stdio: ["pipe", "pipe", "ignore"],
        env: { ...process.env, NO_COLOR: "1" }
      })
    ),
    (child) =>
      Effect.callback<ReadonlyArray<Message>>((resume) => {
        const messages: Array<Message> = []
        let buffered = ""
        const finish = () => resume(Effect.succeed(messages))
        const timer = setTimeout(finish, 20_000)
        child.stdout.on("data", (chunk: Buffer) => {
          buffered += chunk.toString()
          const parts = buffered.split("\n")
          buffered = parts.pop() ?? ""
          for (const part of parts) if (part !== "") messages.push(JSON.parse(part) as Message)
          if (done(messages)) {
            clearTimeout(timer)
            finish()
          }
        })
        child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(""))
      }),
    (child) => Effect.sync(() => void child.kill("SIGKILL"))
  )

const updated = (messages: ReadonlyArray<Message>) =>
  messages.some((m) => m.method === "notifications/resources/updated" && m.params?.uri === tasks)
const answered = (messages: ReadonlyArray<Message>, id: number) =>
  messages.some((m) => m.id === id && m.method === undefined)

describe("requests on one stdio connection", () => {
  it.live(
    "a subscribe followed at once by a call that changes what it follows is answered, then the change announced",
    () =>
      Effect.gen(function*() {
        const messages = yield* exchange([
          initialize,
          initialized,
          { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: tasks } },
          { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "tasks_add", arguments: { title: "next" } } }
        ], (messages) => answered(messages, 3) && updated(messages))
        assert.isTrue(answered(messages, 2), "the subscribe was answered")
        assert.isTrue(answered(messages, 3), "the call was answered")
        assert.isTrue(updated(messages), "the change the call made was announced")
        const subscribe = messages.findIndex((m) => m.id === 2 && m.method === undefined)
        const call = messages.findIndex((m) => m.id === 3 && m.method === undefined)
        assert.isBelow(subscribe, call, "the subscribe took effect before the call that followed it")
      }),
    { timeout: 60_000 }
  )
})
