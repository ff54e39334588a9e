// The rows one guarded call leaves, driven step by step: a decision held open to cancel it before it
// is made, a defect while deciding or sending, an audit that refuses the row a call must have
// before it is sent. The guard's `execute` runs every call through this sequence.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import type { Audit } from "effect-surface/guard"
import { Identity } from "effect-surface"
import * as ToolResult from "../../src/core/ToolResult.ts"
import { AuditError } from "../../src/guard/Audit.ts"
import { record, type Verdict } from "../../src/guard/internal/rows.ts"

const done: ToolResult.ToolResult = { content: [ToolResult.text("done")] }

const call = { door: "mcp", tool: "transfer", args: { to: "acct-1", amount: 5 }, caller: Identity.local } as const

/** An audit in memory, its writes refused for the outcomes in `refuse`. */
const memoryAudit = (refuse: ReadonlyArray<Audit.Row["outcome"]> = []) =>
  Effect.map(Ref.make<ReadonlyArray<Audit.Row>>([]), (rows) => ({
    rows: Ref.get(rows),
    log: {
      path: "memory",
      digest: () => "hmac-sha256:test",
      write: (row: Audit.Row) =>
        refuse.includes(row.outcome)
          ? Effect.fail(new AuditError({ path: "memory", reason: "the disk is full" }))
          : Ref.update(rows, (all) => [...all, row])
    }
  }))

const endings = (rows: ReadonlyArray<Audit.Row>) => rows.map((row) => [row.decision, row.outcome, row.reason])

const textOf = (result: ToolResult.ToolResult) => result.content[0]?.type === "text" ? result.content[0].text : ""

const allow = (sent: Ref.Ref<number>, answer = Effect.succeed(done)): Verdict => ({
  _tag: "Allow",
  send: Effect.andThen(
    Ref.update(sent, (n) => n + 1),
    Effect.map(answer, (result) => ({ outcome: "ok" as const, answer: result }))
  )
})

describe("the rows of one guarded call", () => {
  it.effect("a call cancelled before the guard decided is recorded as cancelled with no decision, never as allowed", () =>
    Effect.gen(function*() {
      const audit = yield* memoryAudit()
      const deciding = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        record(audit.log, call, Effect.andThen(Deferred.succeed(deciding, undefined), Effect.never))
      )
      yield* Deferred.await(deciding)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(endings(yield* audit.rows), [["none", "cancelled", "cancelled before the guard decided"]])
    }))

  it.effect("a defect while deciding is recorded as a failure, not a cancel, and the caller is told the guard failed", () =>
    Effect.gen(function*() {
      const audit = yield* memoryAudit()
      const answer = yield* record(audit.log, call, Effect.die(new Error("a bug in a check")))
      assert.isTrue(answer.isError)
      assert.match(
        textOf(answer),
        /^effect-surface: the guard failed while deciding on a call to tool "transfer", so it was not sent; the server's log has it as [0-9a-f]{6}$/
      )
      assert.notInclude(textOf(answer), "a bug in a check")
      assert.deepStrictEqual(endings(yield* audit.rows), [["none", "error", "the guard failed while deciding"]])
    }))

  it.effect("an allowed call is recorded started before it is sent, then with how it ended, under one id", () =>
    Effect.gen(function*() {
      const audit = yield* memoryAudit()
      const sent = yield* Ref.make(0)
      const answer = yield* record(
        audit.log,
        call,
        Effect.succeed(allow(sent, Effect.delay(Effect.succeed(done), "2 seconds")))
      ).pipe(
        Effect.forkChild,
        Effect.tap(() => TestClock.adjust("2 seconds")),
        Effect.flatMap(Fiber.join)
      )
      assert.strictEqual(textOf(answer), "done")
      const rows = yield* audit.rows
      assert.deepStrictEqual(endings(rows), [["allow", "started", null], ["allow", "ok", null]])
      assert.strictEqual(rows[0]?.id, rows[1]?.id)
      assert.deepStrictEqual(rows.map((row) => row.durationMs), [0, 2000])
      assert.strictEqual(yield* Ref.get(sent), 1)
    }))

  it.effect("a call whose started row cannot be written is not sent, and the caller is told why", () =>
    Effect.gen(function*() {
      const audit = yield* memoryAudit(["started"])
      const sent = yield* Ref.make(0)
      const answer = yield* record(audit.log, call, Effect.succeed(allow(sent)))
      assert.strictEqual(
        textOf(answer),
        `effect-surface: tool "transfer" was not called: the guard could not write its audit`
      )
      assert.strictEqual(yield* Ref.get(sent), 0)
    }))

  it.effect("a call cancelled while it is sent ends cancelled; a defect while it is sent ends as an error", () =>
    Effect.gen(function*() {
      const audit = yield* memoryAudit()
      const sending = yield* Deferred.make<void>()
      const held: Verdict = {
        _tag: "Allow",
        send: Effect.andThen(Deferred.succeed(sending, undefined), Effect.never)
      }
      const fiber = yield* Effect.forkChild(record(audit.log, call, Effect.succeed(held)))
      yield* Deferred.await(sending)
      yield* Fiber.interrupt(fiber)
      const broken: Verdict = { _tag: "Allow", send: Effect.die(new Error("a bug in framing")) }
      const answer = yield* record(audit.log, call, Effect.succeed(broken))
      assert.include(textOf(answer), "whether it reached the upstream is not known")
      assert.deepStrictEqual(endings(yield* audit.rows), [
        ["allow", "started", null],
        ["allow", "cancelled", null],
        ["allow", "started", null],
        ["allow", "error", "the guard failed while sending"]
      ])
    }))

  it.effect("a refusal is one row, and its answer is the caller's", () =>
    Effect.gen(function*() {
      const audit = yield* memoryAudit()
      const answer = yield* record(
        audit.log,
        call,
        Effect.succeed({ _tag: "Deny", answer: { content: [ToolResult.text("no")] }, reason: "not granted" })
      )
      assert.strictEqual(textOf(answer), "no")
      assert.deepStrictEqual(endings(yield* audit.rows), [["deny", "refused", "not granted"]])
    }))
})
