// A guard in front of the real server-everything: the lock it writes, the tools it serves over MCP,
// the one execution path the shell shares, the audit every call leaves, and drift refused.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import { McpServer } from "effect-surface/mcp"
import { Audit, AuditKey, Guard, GuardFile, GuardLock, GuardServe } from "effect-surface/guard"
import { binPath, runBin } from "../bin.ts"
import { entry } from "../client/servers.ts"
import { fromSdk, modulesLoadedBy } from "../moduleLoads.ts"
import { editLock, fixture, type Fixture } from "./guardFixture.ts"

const connected = (connect: (client: Client) => Promise<void>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "guard-test", version: "1.0.0" })
      await connect(client)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** server-everything itself, as an agent would see it unguarded. */
const upstream = connected((client) =>
  client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [entry("server-everything"), "stdio"],
      stderr: "ignore"
    })
  )
)

const lockOf = (f: Fixture) => Effect.flatMap(GuardFile.read(f.guardFile), (file) => Guard.lock(file))

/** The guard of the fixture served over MCP from Effect code (Guard and GuardServe layers), an SDK client connected. */
const served = (f: Fixture) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(GuardServe.layer().pipe(Layer.provideMerge(Guard.layerFile(f.guardFile))))
    const server = yield* Effect.provideContext(Effect.service(McpServer), context)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* server.connect(serverSide)
    const client = yield* connected((c) => c.connect(clientSide))
    return Object.assign(client, { guard: yield* Effect.provideContext(Effect.service(Guard.Guard), context) })
  })

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)

const textOf = (result: { readonly content: ReadonlyArray<unknown> }): string => {
  const first = result.content[0]
  return typeof first === "object" && first !== null && "text" in first && typeof first.text === "string" ? first.text
    : ""
}

describe("Guard in front of server-everything", () => {
  it.live("guard lock writes every tool the upstream lists, definitions verbatim", () =>
    Effect.gen(function*() {
      const f = yield* fixture()
      const written = yield* runBin(["guard", "lock", f.guardFile])
      assert.strictEqual(written.status, 0, written.stderr)
      assert.match(written.stdout, /locked \d+ tools of "everything"/)
      const lock = yield* GuardLock.read(f.lock)
      const listed = yield* Effect.scoped(Effect.flatMap(upstream, (c) => Effect.promise(() => c.listTools())))
      // A tool that can only be called as a task is left out of the guard's 2025 session upstream:
      // nothing through the guard could call it.
      const tools = listed.tools.filter((tool) => tool.execution?.taskSupport !== "required")
      assert.deepStrictEqual(lock.tools.map((tool) => tool.name), tools.map((tool) => tool.name))
      for (const tool of tools) {
        const locked = lock.tools.find((t) => t.name === tool.name)
        assert.deepStrictEqual(
          [locked?.title, locked?.description, locked?.inputSchema, locked?.annotations, locked?._meta],
          [tool.title, tool.description, tool.inputSchema, tool.annotations, tool._meta],
          tool.name
        )
      }
    }), 60_000)

  it.live(
    "guard serve lists exactly the granted tools of the lock: upstream names, descriptions, _meta verbatim, schemas rebuilt with the restrictions and closed",
    () =>
      Effect.gen(function*() {
        const f = yield* fixture()
        yield* lockOf(f)
        editLock(f.lock, (lock) => {
          const echo = lock.tools.find((tool) => tool["name"] === "echo")
          if (echo !== undefined) echo["_meta"] = { "vendor.example/trace": { level: 2 } }
        })
        const client = yield* served(f)
        const { tools } = yield* Effect.promise(() => client.listTools())
        // Denied (get-env) and unnamed (the rest) are both absent.
        assert.deepStrictEqual(tools.map((tool) => tool.name), ["echo", "get-structured-content", "get-sum"])
        const live = yield* Effect.flatMap(upstream, (c) => Effect.promise(() => c.listTools()))
        const upstreamOf = (name: string) => live.tools.find((tool) => tool.name === name)
        const byName = (name: string) => tools.find((tool) => tool.name === name)
        assert.deepStrictEqual(byName("echo")?._meta, { "vendor.example/trace": { level: 2 } })
        // Closed to keys the lock does not name: an alias of a restricted argument is no way round it.
        assert.deepStrictEqual<unknown>(byName("echo")?.inputSchema, {
          ...upstreamOf("echo")?.inputSchema,
          additionalProperties: false
        })
        assert.strictEqual(byName("get-sum")?.description, upstreamOf("get-sum")?.description)
        assert.strictEqual(byName("get-sum")?.title, upstreamOf("get-sum")?.title)
        assert.isFalse(Object.hasOwn(byName("get-sum") ?? {}, "_meta"))
        const sum: Record<string, unknown> = { ...upstreamOf("get-sum")?.inputSchema }
        const restricted = {
          ...sum,
          additionalProperties: false,
          properties: {
            ...(sum["properties"] as object),
            a: { type: "number", description: "First number", maximum: 10 }
          }
        }
        assert.deepStrictEqual<unknown>(byName("get-sum")?.inputSchema, restricted)
        const weather = byName("get-structured-content")?.inputSchema.properties?.["location"]
        assert.deepStrictEqual(weather, { type: "string", enum: ["Chicago"], description: "Choose city" })
      }),
    60_000
  )

  it.live(
    "one execution path: the same refusal in the same words over MCP and from the shell, and the same audit rows",
    () =>
      Effect.gen(function*() {
        const f = yield* fixture()
        yield* lockOf(f)
        const client = yield* served(f)
        const allowed = yield* call(client, "get-sum", { a: 2, b: 3 })
        assert.strictEqual(textOf(allowed), "The sum of 2 and 3 is 5.")
        const overMcp = yield* call(client, "get-sum", { a: 11, b: 1 })
        assert.isTrue(overMcp.isError)
        assert.include(textOf(overMcp), `"a"`)
        const fromShell = yield* runBin(["guard", "call", f.guardFile, "get-sum", "--a", "11", "--b", "1"])
        assert.notStrictEqual(fromShell.status, 0)
        assert.strictEqual(fromShell.stdout, "")
        // The shell also logs, once, that server-everything's task-only tool is left out of its 2025 session.
        const [needsTasks, ...refusal] = fromShell.stderr.split("\n")
        assert.include(needsTasks, `tool "simulate-research-query" of MCP server "everything" was left out`)
        assert.strictEqual(refusal.join("\n"), `${textOf(overMcp)}\n`)
        const answered = yield* runBin(["guard", "call", f.guardFile, "get-sum", "--a", "4", "--b", "5"])
        assert.strictEqual(answered.stdout, "The sum of 4 and 5 is 9.\n", answered.stderr)
        // A denied tool is not listed, so a host calling it by name is told it is unknown; the call
        // still reaches the guard's path, which refuses it and audits the refusal.
        const unknown = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "get-env", arguments: {} })))
        assert.include(String(unknown.cause), `unknown tool "get-env"`)
        const denied = yield* client.guard.execute("cli", "get-env", {})
        assert.strictEqual(textOf(denied), `effect-surface: tool "get-env" is not granted by this guard`)

        const rows = yield* Audit.read(f.audit)
        // An allowed call is recorded as it starts, before it is sent, and again when it ends.
        assert.deepStrictEqual(rows.map((row) => [row.door, row.tool, row.decision, row.outcome]), [
          ["mcp", "get-sum", "allow", "started"],
          ["mcp", "get-sum", "allow", "ok"],
          ["mcp", "get-sum", "deny", "refused"],
          ["cli", "get-sum", "deny", "refused"],
          ["cli", "get-sum", "allow", "started"],
          ["cli", "get-sum", "allow", "ok"],
          ["mcp", "get-env", "deny", "refused"],
          ["cli", "get-env", "deny", "refused"]
        ])
        assert.strictEqual(rows[0]?.id, rows[1]?.id)
        assert.strictEqual(new Set(rows.map((row) => row.id)).size, 6)
        const [, , mcpRefusal, cliRefusal] = rows
        assert.strictEqual(mcpRefusal?.reason, cliRefusal?.reason)
        // The caller reads what it sent; the row, only what was expected of it.
        assert.strictEqual(textOf(overMcp), `effect-surface: value at "a": expected a number at most 10, got 11`)
        assert.strictEqual(mcpRefusal?.reason, `value at "a": expected a number at most 10`)
        assert.strictEqual(mcpRefusal?.args, cliRefusal?.args)
        assert.strictEqual(mcpRefusal?.args, AuditKey.digest(yield* AuditKey.read(`${f.audit}.key`), { a: 11, b: 1 }))
        assert.isNull(rows[0]?.reason)
        for (const row of rows) {
          assert.isAtLeast(row.durationMs, 0)
          assert.isFalse(Number.isNaN(Date.parse(row.time)))
        }
        // A digest, never the values: no row says what any argument was.
        assert.notInclude(Fs.readFileSync(f.audit, "utf8"), "got")
      }),
    90_000
  )

  it.live(
    "a tool whose live definition drifted from the lock is refused, and the refusal is audited",
    () =>
      Effect.gen(function*() {
        const f = yield* fixture("audit.db")
        yield* lockOf(f)
        editLock(f.lock, (lock) => {
          const echo = lock.tools.find((tool) => tool["name"] === "echo")
          if (echo !== undefined) echo["description"] = "Echoes back the input string, as reviewed last week"
        })
        const client = yield* served(f)
        const drifted = yield* call(client, "echo", { message: "hi" })
        assert.isTrue(drifted.isError)
        assert.include(textOf(drifted), `tool "echo" changed upstream since the lock was written`)
        assert.strictEqual(textOf(yield* call(client, "get-sum", { a: 1, b: 1 })), "The sum of 1 and 1 is 2.")
        // The audit path ends in .db: SQLite.
        const rows = yield* Audit.read(f.audit)
        assert.deepStrictEqual(rows.map((row) => [row.tool, row.decision, row.outcome]), [
          ["echo", "deny", "refused"],
          ["get-sum", "allow", "started"],
          ["get-sum", "allow", "ok"]
        ])
        assert.strictEqual(`effect-surface: ${rows[0]?.reason}`, textOf(drifted))
        assert.strictEqual(Fs.readFileSync(f.audit).subarray(0, 15).toString("utf8"), "SQLite format 3")
      }),
    60_000
  )

  it.live(
    "guard call --help types the flags from the lock, restrictions included, and loads no MCP SDK",
    () =>
      Effect.gen(function*() {
        const f = yield* fixture()
        yield* lockOf(f)
        const help = yield* runBin(["guard", "call", f.guardFile, "get-sum", "--help"])
        assert.strictEqual(help.status, 0, help.stderr)
        assert.match(help.stdout, /--a number\s+First number \(required; at most 10\)/)
        assert.match(help.stdout, /--b number\s+Second number \(required\)/)
        const weather = yield* runBin(["guard", "call", f.guardFile, "get-structured-content", "--help"])
        assert.match(weather.stdout, /--location Chicago\s+Choose city \(required; one of: Chicago\)/)
        const loads = modulesLoadedBy(new URL("../../src/cli/main.ts", import.meta.url).href, [
          "guard",
          "call",
          f.guardFile,
          "get-sum",
          "--help"
        ])
        assert.strictEqual(loads.status, 0, loads.stderr)
        assert.isTrue(loads.urls.some((url) => url.endsWith("/src/guard/Grants.ts")))
        assert.deepStrictEqual(fromSdk(loads.urls), [])
      }),
    60_000
  )

  it.live(
    "effect-surface guard serve serves the guard over stdio, and over Streamable HTTP with --http",
    () =>
      Effect.gen(function*() {
        const f = yield* fixture()
        yield* lockOf(f)
        const overStdio = yield* connected((client) =>
          client.connect(
            new StdioClientTransport({
              command: process.execPath,
              args: [binPath, "guard", "serve", f.guardFile],
              stderr: "ignore"
            })
          )
        )
        assert.deepStrictEqual((yield* Effect.promise(() => overStdio.listTools())).tools.map((tool) => tool.name), [
          "echo",
          "get-structured-content",
          "get-sum"
        ])
        assert.strictEqual(textOf(yield* call(overStdio, "echo", { message: "over stdio" })), "Echo: over stdio")

        const url = yield* servingHttp(f.guardFile)
        const overHttp = yield* connected((client) => client.connect(new StreamableHTTPClientTransport(new URL(url))))
        assert.strictEqual(textOf(yield* call(overHttp, "get-sum", { a: 3, b: 4 })), "The sum of 3 and 4 is 7.")
        const rows = yield* Audit.read(f.audit)
        assert.deepStrictEqual(rows.map((row) => [row.door, row.tool, row.outcome]), [
          ["mcp", "echo", "started"],
          ["mcp", "echo", "ok"],
          ["mcp", "get-sum", "started"],
          ["mcp", "get-sum", "ok"]
        ])
      }),
    90_000
  )
})

/** `effect-surface guard serve <file> --http 0` as a child, answering the URL it prints once listening. */
const servingHttp = (guardFile: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, [binPath, "guard", "serve", guardFile, "--http", "0"], {
        stdio: ["ignore", "ignore", "pipe"]
      })
    ),
    (child) =>
      Effect.callback<void>((resume) => {
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  ).pipe(
    Effect.flatMap((child) =>
      Effect.callback<string>((resume) => {
        let seen = ""
        child.stderr.on("data", (chunk: Buffer) => {
          seen += chunk.toString("utf8")
          const found = /guard serving MCP at (\S+)/.exec(seen)
          if (found?.[1] !== undefined) resume(Effect.succeed(found[1]))
        })
      })
    ),
    Effect.timeout("30 seconds")
  )
