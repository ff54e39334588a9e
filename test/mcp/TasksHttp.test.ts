// MCP tasks over Streamable HTTP, on the conformance server's task tools: what a client that
// follows tasks sees, what one that does not sees, a listen stream following a task, and a task
// that outlives the client process that started it.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Client, Implementation, Surface } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import * as ChildProcess from "node:child_process"
import { serve } from "../../examples/conformance-server/main.ts"
import { contentOf, envelope, overHttp, raw } from "./modern.ts"

const follows = { extensions: { "io.modelcontextprotocol/tasks": {} } }

const poll = (url: string, taskId: string, status: string) =>
  Effect.gen(function*() {
    for (let tries = 0; tries < 100; tries++) {
      const { answer } = yield* raw(url, 900 + tries, "tasks/get", { taskId }, follows)
      if (answer.result?.["status"] === status) return answer.result
      yield* Effect.sleep("100 millis")
    }
    return assert.fail(`task ${taskId} never reached ${status}`)
  })

// A client in a process of its own: it calls, prints the task it was answered with, and exits at
// once, its connection dropped with it.
const clientProcess = (url: string) =>
  Effect.callback<string>((resume) => {
    const script = `
      const response = await fetch(${JSON.stringify(url)}, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "slow_compute" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {
          name: "slow_compute", arguments: { seconds: 1, label: "orphaned client" },
          _meta: ${JSON.stringify(envelope(follows))} } })
      })
      process.stdout.write((await response.json()).result.taskId)
      process.exit(0)
    `
    const child = ChildProcess.spawn(process.execPath, ["--input-type=module", "-e", script])
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.once("exit", () => resume(Effect.succeed(out.trim())))
  })

// Read a listen stream's events until `done` says so, then drop it.
const listen = (url: string, taskIds: ReadonlyArray<string>, done: (message: any) => boolean) =>
  Effect.promise(async () => {
    const abort = new AbortController()
    const response = await fetch(url, {
      method: "POST",
      signal: abort.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen"
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen",
        method: "subscriptions/listen",
        params: { notifications: { taskIds }, _meta: envelope(follows) }
      })
    })
    const messages: Array<any> = []
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ""
    for (;;) {
      const { done: ended, value } = await reader.read()
      if (ended) break
      buffer += value
      for (const line of buffer.split("\n").filter((line) => line.startsWith("data: "))) {
        messages.push(JSON.parse(line.slice(6)))
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1)
      if (messages.some(done)) break
    }
    abort.abort()
    return messages
  })

describe("MCP tasks over HTTP", () => {
  it.live(
    "a task outlives the client process that started it: another client fetches its result",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serve(0)
        const taskId = yield* clientProcess(url)
        assert.match(taskId, /^[0-9a-f-]{36}$/)
        const done = yield* poll(url, taskId, "completed")
        assert.deepStrictEqual(contentOf(done["result"]), [
          { type: "text", text: `Computation "orphaned client" completed after 1 seconds. Result: 42.` }
        ])
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a listen stream following a task is told each move, the last carrying the result, each tagged with its subscription",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serve(0)
        const { answer } = yield* raw(url, 1, "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 1, label: "heard" }
        }, follows)
        const taskId = String(answer.result?.["taskId"])
        const messages = yield* listen(
          url,
          [taskId, "no-such-task"],
          (message) => message.params?.status === "completed"
        )
        assert.deepStrictEqual(messages[0].method, "notifications/subscriptions/acknowledged")
        assert.deepStrictEqual(messages[0].params.notifications, { taskIds: [taskId] })
        const last = messages.at(-1)
        assert.strictEqual(last.method, "notifications/tasks")
        assert.strictEqual(last.params.taskId, taskId)
        assert.strictEqual(last.params._meta["io.modelcontextprotocol/subscriptionId"], "listen")
        assert.notProperty(last.params, "resultType")
        assert.deepStrictEqual(contentOf(last.params.result), [
          { type: "text", text: `Computation "heard" completed after 1 seconds. Result: 42.` }
        ])
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a listen stream opened after its task ended is told the task as it stands, right after the acknowledgement",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serve(0)
        const { answer } = yield* raw(url, 1, "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 1, label: "told late" }
        }, follows)
        const taskId = String(answer.result?.["taskId"])
        yield* poll(url, taskId, "completed")
        const messages = yield* listen(url, [taskId], (message) => message.method === "notifications/tasks")
        assert.deepStrictEqual(messages.map((message) => message.method), [
          "notifications/subscriptions/acknowledged",
          "notifications/tasks"
        ])
        assert.strictEqual(messages[1].params.status, "completed")
        assert.deepStrictEqual(contentOf(messages[1].params.result), [
          { type: "text", text: `Computation "told late" completed after 1 seconds. Result: 42.` }
        ])
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a client that does not follow tasks: tasks methods and listening to tasks are refused naming the extension, a tool that requires a task is refused, one that may is answered in full",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serve(0)
        const needs = { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } }
        for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
          const { answer, status } = yield* raw(url, 1, method, { taskId: "t", inputResponses: {} })
          assert.strictEqual(status, 400)
          assert.strictEqual(answer.error?.code, -32021)
          assert.deepStrictEqual(answer.error?.data, needs)
        }
        const required = yield* raw(url, 2, "tools/call", { name: "failing_job", arguments: {} })
        assert.strictEqual(required.answer.error?.code, -32021)
        assert.deepStrictEqual(required.answer.error?.data, needs)
        const optional = yield* raw(url, 3, "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 1, label: "sync" }
        })
        assert.strictEqual(optional.answer.result?.["resultType"], "complete")
        assert.deepStrictEqual(contentOf(optional.answer.result), [
          { type: "text", text: `Computation "sync" completed after 1 seconds. Result: 42.` }
        ])
        const listening = yield* raw(url, 4, "subscriptions/listen", { notifications: { taskIds: ["t"] } })
        assert.strictEqual(listening.answer.error?.code, -32021)
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "tasks/result and tasks/list are no methods of this revision, an unknown task is refused, and Mcp-Name must be the task's id",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serve(0)
        for (const method of ["tasks/result", "tasks/list"]) {
          const { answer, status } = yield* raw(url, 1, method, { taskId: "t" }, follows)
          assert.strictEqual(status, 404)
          assert.strictEqual(answer.error?.code, -32601)
        }
        const unknown = yield* raw(url, 2, "tasks/get", { taskId: "no-such-task" }, follows)
        assert.strictEqual(unknown.answer.error?.code, -32602)
        const mismatched = yield* Effect.promise(() =>
          fetch(url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": "2026-07-28",
              "mcp-method": "tasks/get",
              "mcp-name": "another-task"
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 3,
              method: "tasks/get",
              params: { taskId: "no-such-task", _meta: envelope(follows) }
            })
          }).then((response) => response.json() as Promise<{ readonly error: { readonly code: number } }>)
        )
        assert.strictEqual(mismatched.error.code, -32020)
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a surface's procedure declared task-capable is answered with a task once it runs a while, its output the task's result",
    () =>
      Effect.gen(function*() {
        const Jobs = Surface.make({
          procedures: {
            jobs: {
              build: {
                input: Schema.Struct({ target: Schema.String }),
                output: Schema.Struct({ artifact: Schema.String }),
                task: "optional",
                description: "Build a target: it takes a while."
              }
            }
          }
        })
        const impl = Implementation.make(Jobs, {
          procedures: {
            jobs: {
              build: ({ target }) => Effect.as(Effect.sleep("500 millis"), { artifact: `${target}.tar.gz` })
            }
          }
        })
        const { url } = yield* McpHttp.serve({
          core: { surface: Jobs, expose: { procedures: { "jobs.build": true } } },
          client: Effect.succeed({ core: Client.erase(Client.directDispatch(impl)), clients: {} }),
          tasks: { after: "100 millis" },
          http: { port: 0 }
        })
        const { answer } = yield* raw(
          url,
          1,
          "tools/call",
          { name: "jobs_build", arguments: { target: "app" } },
          follows
        )
        assert.strictEqual(answer.result?.["resultType"], "task")
        const done = yield* poll(url, String(answer.result?.["taskId"]), "completed")
        assert.deepStrictEqual((done["result"] as { structuredContent: unknown }).structuredContent, {
          artifact: "app.tar.gz"
        })
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a 2025 session has no tasks: a tool that may run as one is answered in full",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serve(0)
        const client = yield* overHttp(url, "legacy")
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "slow_compute", arguments: { seconds: 1, label: "session" } })
        )
        assert.deepStrictEqual(contentOf(result), [
          { type: "text", text: `Computation "session" completed after 1 seconds. Result: 42.` }
        ])
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )
})
