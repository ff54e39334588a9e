/**
 * One turn's hold on the editor: every call it makes, its cancellation, and the cleanup it left.
 *
 * A call is sent through the SDK's client context with its own abort signal and
 * `stopWaitingOnCancel`, so cancelling it (the turn was cancelled, or the calling fiber was
 * interrupted) sends `$/cancel_request` and settles it at once instead of waiting for an editor that
 * may never answer. How the SDK rejects tells the endings apart: a `RequestError` is the editor's
 * answer (or our own cancel), anything else is the connection closing. The SDK callbacks are the
 * only Promise boundary; cancellation is a `Deferred`, deadlines are the `Clock`'s.
 */
import type { AgentContext } from "@agentclientprotocol/sdk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { messageOf } from "../../core/ToolFailure.ts"
import { Cancelled, Disconnected, type NotifyError, Refused, type RequestError } from "../AcpError.ts"
import type { Checks } from "../AcpChecks.ts"
import type { Surface } from "../AcpSurface.ts"
import * as Capabilities from "../Capabilities.ts"
import type { Capabilities as ClientCapabilities, CleanupRequest, Update } from "../Protocol.ts"
import * as Permission from "./permission.ts"

/** One connection to an editor, as a turn needs it. `capabilities` is set once, at `initialize`. */
export interface Link {
  readonly client: AgentContext
  /** Aborts when the connection closes. */
  readonly signal: AbortSignal
  readonly checks: Checks
  capabilities: ClientCapabilities
}

/**
 * A turn's state. Its mutable fields are touched synchronously only (by the calls of this turn and
 * the agent's cancel), so they are plain fields rather than references.
 */
export interface Turn {
  readonly link: Link
  readonly sessionId: string
  /** Completes when the turn is cancelled. */
  readonly cancelled: Deferred.Deferred<void>
  /** The abort controllers of the calls now outstanding. */
  readonly outstanding: Set<AbortController>
  readonly registrations: Map<number, ReadonlyArray<CleanupRequest>>
  /** The registrations standing when the turn was cancelled: what its cleanup sends. */
  frozen: ReadonlyArray<ReadonlyArray<CleanupRequest>> | undefined
  /** The turn ended some other way: its registrations are gone, and a later cancel sends nothing. */
  ended: boolean
  nextId: number
}

export const make = (link: Link, sessionId: string): Turn => ({
  link,
  sessionId,
  cancelled: Deferred.makeUnsafe<void>(),
  outstanding: new Set(),
  registrations: new Map(),
  frozen: undefined,
  ended: false,
  nextId: 0
})

export const isCancelled = (turn: Turn): boolean => Deferred.isDoneUnsafe(turn.cancelled)

/**
 * Cancel the turn: its standing registrations are frozen for the cleanup, every outstanding call is
 * cancelled at the editor, and later calls are refused. `false` when it had already ended or been
 * cancelled.
 */
export const cancel = (turn: Turn): boolean => {
  if (turn.ended || isCancelled(turn)) return false
  turn.frozen = [...turn.registrations.values()]
  turn.registrations.clear()
  Deferred.doneUnsafe(turn.cancelled, Effect.void)
  for (const controller of turn.outstanding) controller.abort(new Error("the turn was cancelled"))
  turn.outstanding.clear()
  return true
}

/** The turn ended without a cancel: what it registered is dropped, never sent. */
export const end = (turn: Turn): void => {
  if (isCancelled(turn)) return
  turn.ended = true
  turn.registrations.clear()
}

const isRequestError = (
  error: unknown
): error is { readonly code: number; readonly message: string; readonly data?: unknown } =>
  error instanceof Error && typeof (error as { readonly code?: unknown }).code === "number"

const CANCELLED_CODE = -32800

// One call on the wire, its answer handed to `checked`. `tracked` is the turn whose cancel
// cancels it; cleanup calls have none.
const send = (
  link: Link,
  method: string,
  params: object,
  tracked: Turn | undefined,
  checked: (answer: unknown) => Effect.Effect<unknown, RequestError>
): Effect.Effect<unknown, RequestError> =>
  Effect.callback<unknown, RequestError>((resume) => {
    const controller = new AbortController()
    tracked?.outstanding.add(controller)
    const settle = () => tracked?.outstanding.delete(controller)
    link.client.request<unknown, object>(method, params, {
      cancellationSignal: controller.signal,
      stopWaitingOnCancel: true
    }).then(
      (answer) => {
        settle()
        resume(checked(answer))
      },
      (error: unknown) => {
        settle()
        if (!isRequestError(error)) resume(Effect.fail(new Disconnected({ method, sent: true })))
        else if (error.code === CANCELLED_CODE && tracked !== undefined && isCancelled(tracked))
          resume(Effect.fail(new Cancelled({ method, sent: true })))
        else resume(
            Effect.fail(
              new Refused({
                method,
                code: error.code,
                reason: error.message,
                ...(error.data === undefined ? {} : { data: error.data })
              })
            )
          )
      }
    )
    // The caller was interrupted: the editor is told, and nothing waits for its answer.
    return Effect.sync(() => {
      settle()
      controller.abort(new Error("the caller stopped waiting"))
    })
  })

// Everything a call owes before it may be sent, then the call and the check of its answer. Each
// check is made when the call runs: an Effect built earlier and run later (in a finalizer, by a
// repeat) sees the capabilities and the connection as they are then.
const exchange = (
  link: Link,
  sessionId: string,
  method: string,
  params: object,
  tracked: Turn | undefined
): Effect.Effect<unknown, RequestError> =>
  Effect.suspend(() => {
    const refusal = Capabilities.check(link.capabilities, method, params) ?? link.checks.missing(method)
    if (refusal !== undefined) return Effect.fail(refusal)
    if (link.signal.aborted) return Effect.fail(new Disconnected({ method, sent: false }))
    return send(link, method, { ...params, sessionId }, tracked, (answer) => link.checks.answer(method, answer))
  })

/**
 * A call made by the turn: refused once it is cancelled — decided each time the call runs, never
 * when it was built — permission failing closed.
 */
export const request = (turn: Turn, method: string, params: object): Effect.Effect<unknown, RequestError> => {
  const call = Effect.suspend(() =>
    isCancelled(turn) ? Effect.fail(new Cancelled({ method, sent: false }))
      : exchange(turn.link, turn.sessionId, method, params, turn)
  )
  return method === Permission.METHOD ? Permission.failClosed(params, call, () => isCancelled(turn)) : call
}

/**
 * A `session/update`, checked and handed to the SDK; nothing waits for it to be written. Refused
 * once the turn is cancelled, decided when it runs.
 */
export const notify = (turn: Turn, update: Update): Effect.Effect<void, NotifyError> =>
  Effect.suspend((): Effect.Effect<void, NotifyError> => {
    const method = "session/update"
    if (isCancelled(turn)) return Effect.fail(new Cancelled({ method, sent: false }))
    const gated = Capabilities.checkUpdate(
      turn.link.capabilities,
      (update as { readonly sessionUpdate?: unknown }).sessionUpdate
    )
    if (gated !== undefined) return Effect.fail(gated)
    const notification = { sessionId: turn.sessionId, update }
    return Effect.flatMap(turn.link.checks.update(notification), () => {
      if (turn.link.signal.aborted) return Effect.fail(new Disconnected({ method, sent: false }))
      turn.link.client.notify("session/update", notification).catch(() => {
        // The connection closed under it: the close reaches every call as Disconnected.
      })
      return Effect.void
    })
  })

/**
 * Register `requests` to be sent if the turn is cancelled, checked now against what the editor
 * advertised. Withdrawn by the returned Effect, or dropped when the caller's scope closes; neither
 * touches a registration a cancel has already frozen.
 */
export const onCancel = (
  turn: Turn,
  requests: ReadonlyArray<CleanupRequest>
): Effect.Effect<Effect.Effect<void>, RequestError, Scope.Scope> =>
  Effect.suspend((): Effect.Effect<Effect.Effect<void>, RequestError, Scope.Scope> => {
    const first = requests[0]?.method ?? "onCancel"
    if (isCancelled(turn)) return Effect.fail(new Cancelled({ method: first, sent: false }))
    for (const { method, params } of requests) {
      const refusal = Capabilities.check(turn.link.capabilities, method, params) ?? turn.link.checks.missing(method)
      if (refusal !== undefined) return Effect.fail(refusal)
    }
    const id = turn.nextId++
    if (!turn.ended) turn.registrations.set(id, [...requests])
    const withdraw = Effect.sync(() => void turn.registrations.delete(id))
    return Effect.as(Effect.addFinalizer(() => withdraw), withdraw)
  })

/**
 * Send what the cancelled turn left registered: in order, each call under `deadline`, every failure
 * logged and none raised.
 */
export const cleanup = (turn: Turn, deadline: Duration.Input): Effect.Effect<void> =>
  Effect.forEach(
    turn.frozen ?? [],
    (requests) =>
      Effect.forEach(requests, ({ method, params }) =>
        exchange(turn.link, turn.sessionId, method, params, undefined).pipe(
          Effect.timeout(deadline),
          Effect.catch((error) =>
            Effect.logWarning(
              `ACP cleanup ${method} after a cancelled turn failed: ${
                error._tag === "TimeoutError"
                  ? `no answer within ${Duration.format(Duration.fromInputUnsafe(deadline))}` : messageOf(error)
              }`
            )
          ),
          Effect.asVoid
        ), { discard: true }),
    { discard: true }
  )

/** The turn as the service its code reaches the editor through. */
export const surfaceOf = (turn: Turn): Surface => ({
  sessionId: turn.sessionId,
  get capabilities() {
    return turn.link.capabilities
  },
  // The SDK's types say what each method answers; the check above made the answer fit them.
  request: (method, params) => request(turn, method, params) as Effect.Effect<never, RequestError>,
  notify: (update) => notify(turn, update),
  onCancel: (requests) => onCancel(turn, requests)
})
