// What a guard's audit promises, checked in front of an upstream that logs every call it receives:
// no argument's value in a row, a keyed digest, a row written before a call is sent and a call not
// sent when its row cannot be written, and rows that say how a cancelled or failed call ended.
import { assert, describe, it } from "@effect/vitest"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Audit, AuditKey } from "effect-surface/guard"
import { runBin } from "../bin.ts"
import { bank, connected, guardOf, servedOver, textOf, until } from "./bank.ts"

const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

describe("the audit of a guard", () => {
  it.live(
    "a row never holds an argument's value: the caller is told the whole sentence, the row only what was expected",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        const guard = yield* guardOf(b)
        const overMcp = yield* guard.execute("mcp", "transfer", { to: "evil-SECRET-TOKEN-123", amount: 5 })
        assert.isTrue(overMcp.isError)
        assert.include(textOf(overMcp), `got "evil-SECRET-TOKEN-123"`)
        const fromShell = yield* runBin([
          "guard",
          "call",
          b.guardFile,
          "transfer",
          "--to",
          "acct-7",
          "--amount",
          "500123"
        ])
        assert.notStrictEqual(fromShell.status, 0)
        assert.include(fromShell.stderr, "got 500123")

        const logged = Fs.readFileSync(b.audit, "utf8")
        assert.notInclude(logged, "SECRET-TOKEN")
        assert.notInclude(logged, "500123")
        assert.notInclude(logged, "acct-7")
        const rows = yield* Audit.read(b.audit)
        assert.deepStrictEqual(rows.map((row) => [row.door, row.decision, row.outcome, row.reason]), [
          ["mcp", "deny", "refused", `value at "to": expected a string matching /^acct-[0-9]+$/`],
          ["cli", "deny", "refused", `value at "amount": expected a number at most 1000`]
        ])
        assert.deepStrictEqual(yield* b.calls, [])
      }),
    60_000
  )

  it.live(
    "the argument digest is keyed: without the key beside the audit (made owner-only) a row's digest cannot be recomputed",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        const guard = yield* guardOf(b)
        yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 5 })
        yield* guard.execute("cli", "transfer", { amount: 5, to: "acct-1" })
        const rows = yield* Audit.read(b.audit)
        // The plain SHA-256 of the arguments' JSON is what a guess would be checked against.
        const plain = createHash("sha256").update(`{"amount":5,"to":"acct-1"}`).digest("hex")
        assert.notInclude(Fs.readFileSync(b.audit, "utf8"), plain)
        const digests = new Set(rows.map((row) => row.args))
        assert.strictEqual(digests.size, 1)
        const keyFile = `${b.audit}.key`
        assert.strictEqual(Fs.statSync(keyFile).mode & 0o777, 0o600)
        const key = yield* AuditKey.read(keyFile)
        assert.deepStrictEqual([...digests], [AuditKey.digest(key, { to: "acct-1", amount: 5 })])
        assert.match(rows[0]?.args ?? "", /^hmac-sha256:[0-9a-f]{64}$/)
      }),
    60_000
  )

  it.live(
    "a key the guard file names is used, and a guard whose key is missing or readable by others does not start",
    () =>
      Effect.gen(function*() {
        const b = yield* bank({ auditKey: "keys/audit.key" })
        const keyFile = Path.join(b.dir, "keys", "audit.key")
        const missing = yield* Effect.flip(guardOf(b))
        assert.include(missing.message, `audit key ${keyFile} cannot be used: it does not exist`)
        Fs.mkdirSync(Path.dirname(keyFile))
        Fs.writeFileSync(keyFile, `${"s".repeat(40)}\n`, { mode: 0o644 })
        Fs.chmodSync(keyFile, 0o644)
        const exposed = yield* Effect.flip(guardOf(b))
        assert.include(exposed.message, "others than its owner may read it (mode 644)")
        Fs.chmodSync(keyFile, 0o600)
        const guard = yield* guardOf(b)
        yield* guard.execute("mcp", "balance", { account: "acct-1" })
        const [row] = yield* Audit.read(b.audit)
        assert.strictEqual(row?.args, AuditKey.digest("s".repeat(40), { account: "acct-1" }))
        assert.isFalse(Fs.existsSync(`${b.audit}.key`))
      }),
    60_000
  )
})

describe("an audit that fails closed", () => {
  it.live(
    "an audit that cannot be written stops the call before it reaches the upstream, at both doors",
    () =>
      Effect.gen(function*() {
        const b = yield* bank({ audit: "/dev/full", auditKey: "audit.key" })
        Fs.writeFileSync(Path.join(b.dir, "audit.key"), "k".repeat(64), { mode: 0o600 })
        const guard = yield* guardOf(b)
        const overMcp = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 5 })
        assert.isTrue(overMcp.isError)
        assert.strictEqual(
          textOf(overMcp),
          `effect-surface: tool "transfer" was not called: the guard could not write its audit`
        )
        const fromShell = yield* runBin(["guard", "call", b.guardFile, "transfer", "--to", "acct-1", "--amount", "5"])
        assert.notStrictEqual(fromShell.status, 0)
        assert.include(fromShell.stderr, `tool "transfer" was not called: the guard could not write its audit`)
        assert.deepStrictEqual(yield* b.calls, [])
      }),
    60_000
  )

  it.live("a guard whose audit cannot be opened does not start, and calls nothing", () =>
    Effect.gen(function*() {
      const b = yield* bank({ audit: "no-such-dir/audit.jsonl" })
      const failed = yield* Effect.flip(guardOf(b))
      assert.include(failed.message, `audit ${Path.join(b.dir, "no-such-dir", "audit.jsonl")}`)
      const served = yield* runBin(["guard", "serve", b.guardFile])
      assert.notStrictEqual(served.status, 0)
      assert.include(served.stderr, "no-such-dir")
      assert.strictEqual(served.stdout, "")
      assert.deepStrictEqual(yield* b.calls, [])
    }), 60_000)

  it.live(
    "a call is recorded before it is sent, so a guard killed mid-call leaves the call's started row",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        // The guard's own process (the bin would be a parent waiting on it), so the kill is its death.
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: ["--conditions=effect-surface-source", main, "guard", "serve", b.guardFile],
          stderr: "ignore"
        })
        const client = yield* connected(transport)
        void client.callTool({ name: "hold", arguments: {} }).catch(() => undefined)
        yield* until(Effect.map(b.calls, (calls) => calls.length === 1))
        // The upstream has the call: the row saying it was sent was written before it.
        const before = yield* Audit.read(b.audit)
        assert.deepStrictEqual(before.map((row) => [row.tool, row.decision, row.outcome]), [[
          "hold",
          "allow",
          "started"
        ]])
        process.kill(transport.pid ?? 0, "SIGKILL")
        yield* Effect.sleep("200 millis")
        assert.deepStrictEqual(yield* Audit.read(b.audit), before)
      }),
    60_000
  )

  it.live(
    "a call cancelled while the upstream answers ends as cancelled, under its started row's id",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        const client = yield* servedOver(b)
        const controller = new AbortController()
        const held = client.callTool({ name: "hold", arguments: {} }, undefined, { signal: controller.signal })
        void held.catch(() => undefined)
        yield* until(Effect.map(b.calls, (calls) => calls.length === 1))
        controller.abort()
        yield* until(Effect.map(Audit.read(b.audit), (rows) => rows.length === 2))
        const [started, ended] = yield* Audit.read(b.audit)
        assert.deepStrictEqual([started?.decision, started?.outcome, ended?.decision, ended?.outcome], [
          "allow",
          "started",
          "allow",
          "cancelled"
        ])
        assert.strictEqual(started?.id, ended?.id)
        assert.isAtLeast(ended?.durationMs ?? -1, started?.durationMs ?? 0)
      }),
    60_000
  )
})
