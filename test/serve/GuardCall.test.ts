// `guard call` from a shell, named the way a person gets wrong: a granted tool called by its lock
// name (`tasks_require`) rather than its verb (`tasks-require`) is told the verb it probably meant,
// and no call is made or audited; the verb itself runs.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { root, runBin } from "../bin.ts"

/** A guard in front of this project's own example over stdio, granting `tasks_require`. */
const boardGuard = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "guard-call-"))
    const guardFile = Path.join(dir, "guard.json")
    Fs.writeFileSync(
      guardFile,
      JSON.stringify({
        upstream: {
          name: "board",
          type: "stdio",
          command: process.execPath,
          args: ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"],
          cwd: root
        },
        grants: { tasks_require: true },
        lock: "guard.lock.json",
        audit: "audit.jsonl"
      })
    )
    return { dir, guardFile, audit: Path.join(dir, "audit.jsonl") }
  }),
  ({ dir }) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

describe("guard call, by the wrong name", () => {
  it.live(
    "a granted tool named by its lock name is answered with the verb to use, and nothing is called or audited",
    () =>
      Effect.gen(function*() {
        const guard = yield* boardGuard
        const locked = yield* runBin(["guard", "lock", guard.guardFile])
        assert.strictEqual(locked.status, 0, locked.stderr)
        const misnamed = yield* runBin(["guard", "call", guard.guardFile, "tasks_require", "--id", "t1"])
        assert.notStrictEqual(misnamed.status, 0)
        assert.strictEqual(misnamed.stdout, "")
        assert.include(misnamed.stderr, "no command tasks_require; did you mean tasks-require?")
        assert.notInclude(misnamed.stderr, "expected an object")
        assert.isFalse(Fs.existsSync(guard.audit) && Fs.readFileSync(guard.audit, "utf8").trim() !== "")
        const called = yield* runBin(["guard", "call", guard.guardFile, "tasks-require", "--id", "t1"])
        assert.notInclude(called.stderr, "did you mean")
        assert.include(called.stderr, "t1")
      }),
    60_000
  )
})
