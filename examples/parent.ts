// The example's servers end with whoever started them. Its npm scripts `exec` node, so the server is
// npm's own child and the SIGTERM npm passes on (from a process manager, or a host giving up) reaches
// it; but npm killed outright passes nothing on, and the server would go on holding its port (or its
// host's pipes) as an orphan. So it also watches: once the process that started it has gone (its
// parent id changes as it is re-parented), it sends itself the SIGTERM npm could not pass on, and
// stops as it would on that: its sessions closed, what it holds released, the process ended even
// while stdin is still open.
import { Console, Effect } from "effect"

/** Completes once this process's parent has ended, checking each second. */
export const parentEnded: Effect.Effect<void> = Effect.gen(function*() {
  const parent = process.ppid
  while (process.ppid === parent) yield* Effect.sleep("1 second")
  yield* Console.error(`the process that started this one (${parent}) has ended, so this one stops`)
})

/** `effect`, beside a watch that sends this process SIGTERM when its parent ends first. */
export const whileParentLives = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.raceFirst(
    effect,
    parentEnded.pipe(
      Effect.andThen(Effect.sync(() => process.kill(process.pid, "SIGTERM"))),
      Effect.andThen(Effect.never)
    )
  )
