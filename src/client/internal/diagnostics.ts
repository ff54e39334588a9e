/**
 * Where a toolset says what it noticed: each diagnostic cleared of credentials, said once, logged,
 * handed to the configuration's `onDiagnostic`, and kept for `toolset.diagnostics`.
 *
 * A listing re-read reports the same things again, so a diagnostic already said is dropped — except
 * a change of a server's tools, which is news each time. A handler that fails or throws is ignored:
 * what an agent does with a diagnostic never stops the toolset.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Config from "../Config.ts"
import type * as Diagnostic from "../Diagnostic.ts"
import * as Redact from "./redact.ts"

/** A toolset's diagnostics: every one said so far, and the way to say one. */
export interface Sink {
  readonly all: Effect.Effect<ReadonlyArray<Diagnostic.Diagnostic>>
  readonly emit: (diagnostic: Diagnostic.Diagnostic) => Effect.Effect<void>
}

// A diagnostic as it is said: every URL in it without user info, query or fragment (a server's error
// often quotes the URL it was given, credentials and all).
const cleared = (diagnostic: Diagnostic.Diagnostic): Diagnostic.Diagnostic => {
  let copy: Record<string, unknown> | undefined
  for (const [key, value] of Object.entries(diagnostic)) {
    if (typeof value !== "string") continue
    const clean = Redact.text(value)
    if (clean !== value) (copy ??= { ...diagnostic })[key] = clean
  }
  return (copy as Diagnostic.Diagnostic | undefined) ?? diagnostic
}

/** A sink for one toolset, telling the configuration's `onDiagnostic`. */
export const make = <S>(options: Config.Options<S>): Effect.Effect<Sink> =>
  Effect.gen(function*() {
    // A chunk, so each diagnostic is appended in constant time: a listing can report tens of thousands.
    const all = yield* Ref.make(Chunk.empty<Diagnostic.Diagnostic>())
    const seen = new Set<string>()
    const emit = (said: Diagnostic.Diagnostic): Effect.Effect<void> =>
      Effect.suspend(() => {
        const diagnostic = cleared(said)
        // A listing re-read reports the same things again; each is said once. A change is news each time.
        if (diagnostic.kind !== "tools-changed") {
          if (seen.has(diagnostic.message)) return Effect.void
          seen.add(diagnostic.message)
        }
        const handler = options.onDiagnostic
        const told = handler === undefined ? Effect.void : Effect.suspend(() => {
          const answer = handler(diagnostic)
          return Effect.isEffect(answer) ? answer : Effect.void
        })
        const log = diagnostic.level === "warning" ? Effect.logWarning(diagnostic.message)
          : Effect.logInfo(diagnostic.message)
        return Effect.andThen(
          Ref.update(all, Chunk.append(diagnostic)),
          Effect.andThen(Effect.ignoreCause(told), log)
        )
      }).pipe(Effect.annotateLogs({ "mcp.diagnostic": said.kind }))
    return { all: Effect.map(Ref.get(all), Chunk.toReadonlyArray), emit }
  })
