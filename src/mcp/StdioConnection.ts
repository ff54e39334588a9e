/**
 * One connection over a byte stream pair (this process's stdin and stdout, for the stdio door), and
 * what the end of its input means.
 *
 * A host that closes our stdin means the connection to end, or the process would run on. But a
 * host, or a script piping its requests in
 * (`… | server`), closes its end once it has written its last request, not once it has read the
 * answer: so the end of input takes no more requests yet lets the ones received finish and their
 * answers be written, for at most the drain timeout, and then closes the transport, which ends the
 * connection and interrupts whatever is still running.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Readable, Writable } from "node:stream"
import type * as Stateless from "./v2026/Stateless.ts"
import * as Connection from "./Connection.ts"
import type * as Face from "./face/Face.ts"
import * as StdioLines from "./transport/stdioLines.ts"
import * as Stopping from "./transport/stopping.ts"

const maxStdioLine = 8 * 1024 * 1024

/** Serve `face` on lines read from `input` and answers written to `output`, as described above. */
export const connect = (
  face: Face.Face,
  stateless: Stateless.Stateless | undefined,
  drainTimeout: Duration.Duration,
  input: Readable,
  output: Writable
): Effect.Effect<Connection.Connection, never, Scope.Scope> =>
  Effect.gen(function*() {
    // The drop is reported from a stream callback: run the log line in this session's context.
    const logDropped = Effect.runForkWith(yield* Effect.context<never>())
    const { ended, transport } = StdioLines.make(input, output, maxStdioLine, (bytes) => {
      logDropped(Effect.logWarning(`dropped a ${bytes}-byte line on stdin: longer than the ${maxStdioLine}-byte bound`))
    })
    // A host that stops reading (its end of our stdout closed) has gone: the next write fails with
    // EPIPE, which ends the connection, and stops reading stdin, instead of crashing the process.
    const gone = () => {
      input.destroy()
      void transport.close().catch(() => undefined)
    }
    output.on("error", gone)
    yield* Effect.addFinalizer(() => Effect.sync(() => void output.off("error", gone)))
    const connection = yield* Connection.connect(face, transport, { stateless })
    // Asked to stop (Ctrl-C) with requests running: they may answer within the drain timeout, as at
    // the end of stdin. Added after the connection, so it runs before the connection closes.
    yield* Effect.addFinalizer(() => stopping(connection, drainTimeout))
    // The input ends once the transport has read every line of it, so each request is counted by then.
    yield* Effect.promise(() => ended).pipe(
      Effect.andThen(drain(connection, drainTimeout)),
      Effect.andThen(Effect.promise(() => transport.close())),
      Effect.raceFirst(connection.closed),
      Effect.forkScoped
    )
    return connection
  })

const drain = (connection: Connection.Connection, within: Duration.Duration) =>
  connection.idle.pipe(
    Effect.timeoutOrElse({
      duration: within,
      orElse: () =>
        Effect.logWarning(
          `stdin ended ${Duration.format(within)} ago: the requests still running are interrupted, unanswered`
        )
    })
  )

const stopping = (connection: Connection.Connection, within: Duration.Duration) =>
  Effect.gen(function*() {
    const running = yield* connection.running
    yield* Stopping.waitFor({
      running: running > 0,
      what: running === 1 ? "the request still running" : `the ${running} requests still running`,
      within,
      settled: Effect.raceFirst(connection.idle, connection.closed)
    })
  })
