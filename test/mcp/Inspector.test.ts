// The MCP Inspector's command line, as a person checks a server with it: it lists and calls the
// example over stdio (a child it starts) and over Streamable HTTP, in the 2026 era and the 2025 one.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpHttp } from "effect-surface/mcp"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { serverOptions } from "../../examples/board/app.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const inspector = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js", import.meta.url)
)

/** Run the Inspector's CLI with `args` under this Node: its exit code and what it printed. */
const run = (args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [inspector, "--cli", ...args], { cwd: root })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("exit", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill())
  })

/** Where the Inspector reaches the server: what goes before its method, and what after it. */
interface Target {
  readonly before: ReadonlyArray<string>
  readonly after: ReadonlyArray<string>
}

const stdio: Target = {
  before: [],
  after: ["--", process.execPath, "--conditions=effect-surface-source", "examples/main.ts", "--stdio"]
}

const http = (url: string): Target => ({ before: [url, "--transport", "http"], after: [] })

const listsAndCalls = (target: Target, era: "modern" | "legacy") =>
  Effect.gen(function*() {
    const inspect = (method: ReadonlyArray<string>) =>
      run([...target.before, "--protocol-era", era, "--method", ...method, ...target.after])
    const listed = yield* inspect(["tools/list"])
    assert.strictEqual(listed.code, 0, listed.stderr)
    const { tools } = JSON.parse(listed.stdout) as { readonly tools: ReadonlyArray<{ readonly name: string }> }
    assert.include(tools.map((tool) => tool.name), "tasks_add")
    const called = yield* inspect(["tools/call", "--tool-name", "tasks_add", "--tool-arg", "title=inspected"])
    assert.strictEqual(called.code, 0, called.stderr)
    assert.match(JSON.parse(called.stdout).structuredContent.id, /^t\d+$/)
  })

describe("the MCP Inspector 2.12 command line", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.live(`lists and calls the example over stdio (${era} era)`, () => listsAndCalls(stdio, era), {
      timeout: 60_000
    })

    it.live(`lists and calls the example over Streamable HTTP (${era} era)`, () =>
      Effect.gen(function*() {
        const served = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0 } })
        yield* listsAndCalls(http(served.url), era)
      }).pipe(Effect.scoped), { timeout: 60_000 })
  }
})
