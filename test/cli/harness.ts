// Runs a command line in process: Node's services, with stdout, stderr and the console captured.
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Effect, Exit, Ref, Sink, Stdio, Stream } from "effect"
import type { Scope } from "effect"

export interface Ran<E> {
  readonly stdout: string
  readonly stderr: string
  /** What went through the console (effect/cli's help and parse errors). */
  readonly console: string
  readonly exit: Exit.Exit<void, E>
}

const text = (chunk: string | Uint8Array) => typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk)

export const runCli = <E>(
  program: Effect.Effect<void, E, NodeServices.NodeServices | Scope.Scope>
): Effect.Effect<Ran<E>> =>
  Effect.gen(function*() {
    const stdout = yield* Ref.make("")
    const stderr = yield* Ref.make("")
    const consoled = yield* Ref.make("")
    const into = (ref: Ref.Ref<string>) =>
      Sink.forEach((chunk: string | Uint8Array) => Ref.update(ref, (s) => s + text(chunk)))
    const stdio = Stdio.make({
      args: Effect.succeed([]),
      stdout: () => into(stdout),
      stderr: () => into(stderr),
      stdin: Stream.empty
    })
    const record = (...args: ReadonlyArray<unknown>) =>
      Effect.runSync(Ref.update(consoled, (s) => `${s}${args.map(String).join(" ")}\n`))
    const console: Console.Console = { ...globalThis.console, log: record, error: record, info: record }
    const exit = yield* program.pipe(
      Effect.scoped,
      Effect.provideService(Stdio.Stdio, stdio),
      Effect.provide(NodeServices.layer),
      Effect.provideService(Console.Console, console),
      Effect.exit
    )
    return { stdout: yield* Ref.get(stdout), stderr: yield* Ref.get(stderr), console: yield* Ref.get(consoled), exit }
  })

/** The tag of the failure a run ended with, if it failed with one. */
export const failedWith = <E>(exit: Exit.Exit<void, E>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = Cause.findErrorOption(exit.cause)
  return failure._tag === "Some" && typeof failure.value === "object" && failure.value !== null &&
      "_tag" in failure.value
    ? String(failure.value._tag)
    : undefined
}
