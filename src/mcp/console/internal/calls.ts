/**
 * A face's calls as the console sees them: each one shown as it starts and as it ends, and the ones
 * the console holds made to wait for the operator first.
 *
 * The console wraps the face's `callTool`, the one door every session of either era calls through,
 * so no transport knows it is watched and a call cannot reach the engine around it.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Identity from "../../../core/Identity.ts"
import * as ToolFailure from "../../../core/ToolFailure.ts"
import * as ToolResult from "../../../core/ToolResult.ts"
import type * as Face from "../../face/Face.ts"
import type * as Bus from "./bus.ts"
import * as ConsoleRoster from "./roster.ts"
import type * as Holds from "./holds.ts"
import * as State from "./state.ts"
import { Peer } from "../../face/Peer.ts"

/** What the wrapper needs of its console. */
export interface Watcher {
  readonly state: State.State
  /** The scope sets seen calling (authorization on), keyed as views are, with one caller of each. */
  readonly seen: Ref.Ref<ReadonlyMap<string, Identity.Principal>>
  readonly bus: Ref.Ref<Bus.Bus>
  readonly holds: Holds.Holds
  readonly holding: (tool: string, args: unknown) => boolean
  readonly showArguments: boolean
}

// A client seen calling, keyed by its session (or, without one, its subject, name and era).
const noteClient = (
  watcher: Watcher,
  share: (move: State.Move) => Effect.Effect<void>,
  peer: Peer | undefined,
  caller: State.Caller,
  time: number
) =>
  Effect.gen(function*() {
    if (peer === undefined) return
    const key = peer.session ?? `${caller.subject ?? ""}|${caller.client ?? "client"}@${peer.era}`
    const before = (yield* watcher.state.snapshot).clients.find((c) => c.key === key)
    yield* share({
      _tag: "client",
      client: {
        key,
        era: peer.era,
        name: State.claimOf(peer),
        subject: caller.subject,
        session: peer.session,
        instance: watcher.holds.instance,
        lastSeen: time,
        calls: (before?.calls ?? 0) + 1
      }
    })
  })

// A scope set not seen before: remembered, and every scope set's view shown again.
const noteScopes = (face: Face.Face, watcher: Watcher, principal: Identity.Principal) =>
  Effect.gen(function*() {
    if (principal._tag === "Local") return
    const key = Identity.viewKey(principal)
    const known = yield* Ref.modify(watcher.seen, (seen) =>
      seen.has(key) ? [true, seen] : [false, new Map(seen).set(key, principal)] as const)
    if (known)
      return
    yield* watcher.state.apply({ _tag: "views", views: yield* ConsoleRoster.views(face, yield* Ref.get(watcher.seen)) })
  })

/** The face's `callTool`, watched (and held where the console says) by `watcher`. */
export const watch = (face: Face.Face, watcher: Watcher): Face.Face["callTool"] => (name, args) =>
  Effect.gen(function*() {
    const bus = yield* Ref.get(watcher.bus)
    const peer = yield* Peer
    const principal = yield* Identity.Identity
    const caller = State.callerOf(peer, principal)
    const id = yield* watcher.holds.nextId
    const time = yield* Clock.currentTimeMillis
    yield* noteClient(watcher, bus.share, peer, caller, time)
    yield* noteScopes(face, watcher, principal)
    const row: State.CallRow = {
      id,
      time,
      tool: name,
      ...caller,
      decision: "allow",
      outcome: "running",
      ...(watcher.showArguments ? { args } : {})
    }
    const show = (over: Partial<State.CallRow>) => bus.share({ _tag: "call", call: { ...row, ...over } })
    const ended = (outcome: State.CallRow["outcome"], over: Partial<State.CallRow> = {}) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => show({ ...over, outcome, durationMs: now - time }))
    if (!watcher.holding(name, args)) {
      yield* show({})
      return yield* face.callTool(name, args).pipe(Effect.onExit((exit) => ended(outcomeOf(exit))))
    }
    yield* show({ decision: "held" })
    const answer = yield* watcher.holds.ask({ toolName: name, server: face.serverInfo.name, tool: name, args }, caller)
      .pipe(Effect.onInterrupt(() => ended("cancelled", { decision: "held" })))
    if (answer.decision._tag === "Deny") {
      yield* ended("refused", { decision: "denied", decidedBy: answer.by })
      return ToolResult.failure(ToolFailure.make(answer.decision.reason, { tool: name, decidedBy: answer.by }))
    }
    const approved = { decision: "approved", decidedBy: answer.by } as const
    yield* show(approved)
    return yield* face.callTool(name, args).pipe(Effect.onExit((exit) => ended(outcomeOf(exit), approved)))
  })

const outcomeOf = (exit: Exit.Exit<ToolResult.ToolResult, unknown>): State.CallRow["outcome"] =>
  Exit.isSuccess(exit)
    ? (exit.value.isError === true ? "error" : "ok")
    : Exit.hasInterrupts(exit)
    ? "cancelled"
    : "error"
