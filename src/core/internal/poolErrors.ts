/**
 * The three ways a pool answers without a connection, apart from the machinery that raises them, so
 * the connection-level modules word them without importing the pool's public module.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** See `ConnectionPool.DialFailed`. */
export class DialFailed extends Schema.TaggedError<DialFailed>()("DialFailed", {
  target: Schema.String,
  /** Who is still running though the link is not ("The server"), as the message says. */
  server: Schema.String,
  dials: Schema.Number,
  bornDead: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    const head = this.bornDead === this.dials
      ? `could not open a live connection to ${this.target}: all ${this.dials} dials were born dead ` +
        `(the transport announced its close while the connection was being registered)`
      : `could not open a connection to ${this.target} after ${this.dials} dial(s), ${this.bornDead} born dead: ` +
        this.reason
    return `${head}. Nothing was sent, so a retry is safe. ${this.server} is still running; the next request re-dials.`
  }
}

/** See `ConnectionPool.ConnectionLost`. */
export class ConnectionLost extends Schema.TaggedError<ConnectionLost>()("ConnectionLost", {
  target: Schema.String,
  server: Schema.String,
  connection: Schema.Number,
  phase: Schema.Literals(["dial", "call", "closed"]),
  reason: Schema.String
}) {
  override get message(): string {
    const link = `connection #${this.connection} to ${this.target}`
    return this.phase === "call"
      ? `${link} dropped while a call was in flight (${this.reason}). ${this.server} is still running. ` +
        `The call's outcome is unknown: the served side may have acted and only the reply been lost, ` +
        `so it was not retried. The next request re-dials.`
      : `${link} was gone before the call reached it (${this.reason}): not reached — safe to retry. ` +
        `${this.server} is still running; the next request re-dials.`
  }
}

/** See `ConnectionPool.PoolClosed`. */
export class PoolClosed extends Schema.TaggedError<PoolClosed>()("PoolClosed", { target: Schema.String }) {
  override get message(): string {
    return `the connection to ${this.target} is shut down: no new connection is dialled after close.`
  }
}
