// A guard in front of an upstream of our own: a bank whose tools are a JSON file, every call that
// reaches it logged with its arguments, so a test can tell exactly what the guard forwarded — and
// what it did not.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Context, Effect, Layer, Schedule } from "effect"
import type { Scope } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import type { McpDrift } from "effect-surface/client"
import { McpServer } from "effect-surface/mcp"
import { Guard, GuardFile, GuardServe } from "effect-surface/guard"

const server = fileURLToPath(new URL("./fixtures/bank-server.ts", import.meta.url))

export const transfer = {
  name: "transfer",
  title: "Transfer",
  description: "Move money to another account.",
  inputSchema: {
    type: "object",
    properties: {
      to: { type: "string", description: "The account to pay" },
      amount: { type: "number", description: "How much to send" },
      currency: { type: "string", enum: ["EUR", "BTC"] },
      memo: { type: "string" }
    },
    required: ["to", "amount"]
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  _meta: { "bank.example/tier": "gold" }
} satisfies McpDrift.Listed

export const balance = {
  name: "balance",
  description: "The balance of an account.",
  inputSchema: { type: "object", properties: { account: { type: "string" } }, required: ["account"] },
  annotations: { readOnlyHint: true }
} satisfies McpDrift.Listed

/** Answered only when its caller cancels it. */
export const hold = {
  name: "hold",
  description: "Hold the line until the caller hangs up.",
  inputSchema: { type: "object", properties: {} }
} satisfies McpDrift.Listed

export const closeAccount = {
  name: "close_account",
  description: "Close an account for good.",
  inputSchema: { type: "object", properties: { account: { type: "string" } }, required: ["account"] }
} satisfies McpDrift.Listed

export const grants = {
  transfer: { restrict: { to: { pattern: "^acct-[0-9]+$" }, amount: { maximum: 1000 } } },
  balance: true,
  hold: true,
  close_account: false
}

export interface Bank {
  readonly dir: string
  readonly guardFile: string
  readonly lock: string
  readonly audit: string
  /** The calls that reached the upstream, with their arguments. */
  readonly calls: Effect.Effect<ReadonlyArray<{ readonly name: string; readonly arguments: unknown }>>
  /** Change what the upstream lists. */
  readonly set: (tools: ReadonlyArray<McpDrift.Listed>) => Effect.Effect<void>
}

/**
 * A directory with the bank's guard file (`fields` over the defaults: its grants, audit, …), its
 * lock written from the upstream as it lists now.
 */
export const bank = (
  fields: Record<string, unknown> = {},
  tools: ReadonlyArray<McpDrift.Listed> = [transfer, balance, hold, closeAccount]
): Effect.Effect<Bank, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "bank-"))),
      (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
    )
    const toolsFile = Path.join(dir, "bank-tools.json")
    const log = Path.join(dir, "bank-calls.jsonl")
    const set = (next: ReadonlyArray<McpDrift.Listed>) =>
      Effect.sync(() => Fs.writeFileSync(toolsFile, JSON.stringify(next)))
    yield* set(tools)
    Fs.writeFileSync(log, "")
    const upstream = { name: "bank", type: "stdio", command: process.execPath, args: [server, toolsFile, log] }
    const guardFile = Path.join(dir, "guard.json")
    const audit = typeof fields["audit"] === "string" ? fields["audit"] : "audit.jsonl"
    const file = { upstream, grants, lock: "guard.lock.json", audit, ...fields }
    Fs.writeFileSync(guardFile, JSON.stringify(file, null, 2))
    yield* Effect.flatMap(GuardFile.read(guardFile), (decoded) => Guard.lock(decoded))
    return {
      dir,
      guardFile,
      lock: Path.join(dir, "guard.lock.json"),
      audit: Path.resolve(dir, audit),
      calls: Effect.sync(() =>
        Fs.readFileSync(log, "utf8").split("\n").filter((line) => line !== "").map((line) =>
          JSON.parse(line) as { readonly name: string; readonly arguments: unknown }
        )
      ),
      set
    }
  })

/** The bank's guard, started in this scope. */
export const guardOf = (b: Bank) =>
  Effect.map(Layer.build(Guard.layerFile(b.guardFile)), (context) => Context.get(context, Guard.Guard))

/** An SDK client connected over `transport`, closed with the scope. */
export const connected = (transport: Transport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "bank-test", version: "1.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** The bank's guard served over MCP in this process, an SDK client connected. */
export const servedOver = (b: Bank) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(GuardServe.layer().pipe(Layer.provideMerge(Guard.layerFile(b.guardFile))))
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* Context.get(context, McpServer).connect(serverSide)
    return yield* connected(clientSide)
  })

/** Wait (at most ten seconds) until `ready` holds. */
export const until = (ready: Effect.Effect<boolean, unknown>) =>
  ready.pipe(
    Effect.flatMap((is) => is ? Effect.void : Effect.fail("not yet")),
    Effect.retry(Schedule.spaced("25 millis")),
    Effect.timeout("10 seconds"),
    Effect.orDie
  )

/** The text of a result's first block. */
export const textOf = (result: { readonly content: ReadonlyArray<unknown> }): string => {
  const first = result.content[0]
  return typeof first === "object" && first !== null && "text" in first && typeof first.text === "string" ? first.text
    : ""
}
