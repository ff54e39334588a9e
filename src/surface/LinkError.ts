/**
 * The failure of the link between a face and the implementation it dispatches over.
 *
 * A procedure's declared errors are the implementation's answer; a `LinkError` says no answer came
 * back at all — the socket closed, the peer process exited, the dial failed. It is one tagged error
 * shared by the surface client (which raises it) and the ConnectionPool (which reacts to it by
 * dropping the connection), so neither has to guess from an exception's text.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The link to the implementation failed. `phase` says whether a request could have reached it:
 * `"dial"` (nothing was sent), `"call"` (sent, outcome unknown) or `"closed"` (refused locally,
 * because the link was already gone).
 *
 * @example
 * ```ts
 * import { LinkError } from "effect-surface"
 * new LinkError({ phase: "call", reason: "socket closed" })
 * ```
 *
 * @since 0.1.0
 */
export class LinkError extends Schema.TaggedError<LinkError>()("LinkError", {
  phase: Schema.Literals(["dial", "call", "closed"]),
  reason: Schema.String
}) {
  override get message(): string {
    return `link ${this.phase === "dial" ? "could not be opened" : "failed"}: ${this.reason}`
  }
}
