/**
 * The calls held for the operator: each waits (bounded) for a decision made on a page, and every
 * way its wait ends — approved, denied, timed out, cancelled — is recorded with who ended it.
 *
 * One implementation serves both doors a held call comes through: the console's own hold on a
 * face's calls, and the `Approval` service any policy's *ask* is put to.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Crypto from "node:crypto"
import * as Approval from "../../../core/Approval.ts"
import type * as Bus from "./bus.ts"
import type * as State from "./state.ts"

/** What a held call was answered, and by whom. */
export interface Answer {
  readonly decision: Approval.Decision
  readonly by: string
}

/** The held calls of one console. */
export interface Holds {
  /** This console's name among instances: every id it gives begins with it. */
  readonly instance: string
  readonly nextId: Effect.Effect<string>
  readonly ask: (request: Approval.Request, caller: State.Caller) => Effect.Effect<Answer>
  /** Answer a call held here; `false` when none waits under `id`. */
  readonly decideHere: (id: string, decision: "allow" | "deny", by: string) => Effect.Effect<boolean>
  /** Answer a call held here or, shown here but held by another instance, there. */
  readonly decide: (id: string, decision: "allow" | "deny", by: string) => Effect.Effect<boolean>
}

/** Held calls recorded in `state`, shared on whatever bus `bus` holds when each move is made. */
export const make = (options: {
  readonly state: State.State
  readonly bus: Ref.Ref<Bus.Bus>
  readonly timeout: Duration.Duration
  readonly showArguments: boolean
}): Effect.Effect<Holds> =>
  Effect.gen(function*() {
    const { bus, state, timeout } = options
    const instance = Crypto.randomBytes(4).toString("hex")
    const pending = yield* Ref.make(new Map<string, Deferred.Deferred<Answer>>())
    const counter = yield* Ref.make(0)
    const nextId = Ref.modify(counter, (n) => [`${instance}.${(n + 1).toString(36)}`, n + 1] as const)
    const share = (move: State.Move) => Effect.flatMap(Ref.get(bus), (b) => b.share(move))

    const decideHere = (id: string, decision: "allow" | "deny", by: string) =>
      Effect.flatMap(Ref.get(pending), (map) => {
        const waiting = map.get(id)
        if (waiting === undefined) return Effect.succeed(false)
        return Deferred.succeed(
          waiting,
          decision === "allow"
            ? { decision: Approval.allow, by }
            : { decision: Approval.deny(`the operator (${by}) denied this call`), by }
        )
      })

    const decide = (id: string, decision: "allow" | "deny", by: string) =>
      Effect.gen(function*() {
        if (yield* decideHere(id, decision, by)) return true
        if (!(yield* state.snapshot).held.some((held) => held.id === id)) return false
        yield* Effect.flatMap(Ref.get(bus), (b) => b.forward(id, decision, by))
        return true
      })

    const settle = (held: State.Held, answer: Answer) =>
      Effect.gen(function*() {
        yield* Ref.update(pending, (map) => {
          const next = new Map(map)
          next.delete(held.id)
          return next
        })
        const time = yield* Clock.currentTimeMillis
        const decision = answer.decision._tag === "Allow" ? "allow" as const : "deny" as const
        const reason = answer.decision._tag === "Deny" ? answer.decision.reason : undefined
        yield* share({
          _tag: "decided",
          decided: {
            id: held.id,
            time,
            tool: held.tool,
            decision,
            by: answer.by,
            reason,
            caller: held.caller,
            subject: held.subject,
            client: held.client
          }
        })
        yield* Effect.logInfo(`console: ${decision} ${held.tool} for ${held.caller} (by ${answer.by})`).pipe(
          Effect.annotateLogs({
            held: held.id,
            tool: held.tool,
            decision,
            by: answer.by,
            ...(held.subject === undefined ? {} : { subject: held.subject })
          })
        )
      })

    const timedOut = (request: Approval.Request): Answer => ({
      decision: Approval.deny(
        `calling ${request.toolName} needs the operator's approval, and nobody gave it within ${
          Duration.format(timeout)
        }`
      ),
      by: "nobody (timed out)"
    })

    const ask = (request: Approval.Request, caller: State.Caller): Effect.Effect<Answer> =>
      Effect.gen(function*() {
        const id = yield* nextId
        const time = yield* Clock.currentTimeMillis
        const waiting = yield* Deferred.make<Answer>()
        yield* Ref.update(pending, (map) => new Map(map).set(id, waiting))
        const held: State.Held = {
          id,
          time,
          deadline: time + Duration.toMillis(timeout),
          tool: request.toolName,
          server: request.server,
          ...caller,
          description: request.description,
          ...(options.showArguments ? { args: request.args } : {})
        }
        yield* share({ _tag: "held", held })
        const cancelled: Answer = {
          decision: Approval.deny("the call was cancelled while it waited"),
          by: "the caller, who cancelled"
        }
        const answered = yield* Deferred.await(waiting).pipe(
          Effect.timeoutOption(timeout),
          Effect.onInterrupt(() => settle(held, cancelled))
        )
        const answer = Option.getOrElse(answered, () => timedOut(request))
        yield* settle(held, answer)
        return answer
      })

    return { instance, nextId, ask, decideHere, decide }
  })
