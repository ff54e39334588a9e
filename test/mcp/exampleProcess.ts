// An example run as a person runs it (`node examples/…`, on a free port), and what it prints: the
// HTTP examples' tests read their URLs from its output, as a person would.
import { Effect, Ref, Schedule } from "effect"
import type { Scope } from "effect"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

export interface Example {
  readonly child: ChildProcess.ChildProcess
  /** Everything it has printed on stdout so far. */
  readonly output: Effect.Effect<string>
  /** The first group of `pattern` once its output matches it (within 30 seconds). */
  readonly printed: (pattern: RegExp) => Effect.Effect<string>
}

/** Start `script` (a path from the repository's root) on a free port; it is killed when the scope closes. */
export const spawnExample = (script: string): Effect.Effect<Example, never, Scope.Scope> =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(process.execPath, ["--conditions=effect-surface-source", script], {
          cwd: root,
          env: { ...process.env, PORT: "0", NO_COLOR: "1" },
          stdio: ["ignore", "pipe", "pipe"]
        })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
    )
    const output = yield* Ref.make("")
    child.stdout.on("data", (chunk: Buffer) => Ref.update(output, (all) => all + chunk.toString()).pipe(Effect.runSync))
    const printed = (pattern: RegExp) =>
      Effect.flatMap(Ref.get(output), (text) => {
        const found = pattern.exec(text)?.[1]
        return found === undefined ? Effect.fail("not yet") : Effect.succeed(found)
      }).pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout("30 seconds"), Effect.orDie)
    return { child, output: Ref.get(output), printed }
  })
