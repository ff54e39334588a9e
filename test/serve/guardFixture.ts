// A guard in front of the real server-everything, in a directory of its own: the guard file, and
// where its lock and audit go.
import { Effect } from "effect"
import type { Scope } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { entry } from "../client/servers.ts"

export interface Fixture {
  readonly dir: string
  readonly guardFile: string
  readonly lock: string
  readonly audit: string
}

export const grants = {
  echo: true,
  "get-sum": { restrict: { a: { maximum: 10 } } },
  "get-env": false,
  "get-structured-content": { restrict: { location: { enum: ["Chicago", "Paris"] } } }
} as const

/** A directory with a guard file granting echo, get-sum (a at most 10) and get-structured-content (Chicago only). */
export const fixture = (audit = "audit.jsonl"): Effect.Effect<Fixture, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "guard-"))
      const guardFile = Path.join(dir, "guard.json")
      Fs.writeFileSync(
        guardFile,
        JSON.stringify(
          {
            upstream: {
              name: "everything",
              type: "stdio",
              command: process.execPath,
              args: [entry("server-everything"), "stdio"]
            },
            grants,
            lock: "guard.lock.json",
            audit
          },
          null,
          2
        )
      )
      return { dir, guardFile, lock: Path.join(dir, "guard.lock.json"), audit: Path.join(dir, audit) }
    }),
    ({ dir }) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Change the lock on disk, as a person editing it (or an upstream moving on) would. */
export const editLock = (path: string, edit: (lock: { tools: Array<Record<string, unknown>> }) => void) => {
  const lock = JSON.parse(Fs.readFileSync(path, "utf8"))
  edit(lock)
  Fs.writeFileSync(path, JSON.stringify(lock, null, 2))
}
