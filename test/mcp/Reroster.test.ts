import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue, Ref } from "effect"
import type { Bundle } from "effect-surface"
import * as Face from "../../src/mcp/face/Face.ts"
import {
  Board,
  boardExpose,
  makeClients,
  Stopwatch,
  stopwatchExpose,
  stopwatchSibling
} from "../../examples/board/app.ts"
import { call, connectTo, textOf } from "./harness.ts"

const withStopwatch = { stopwatch: stopwatchSibling }

/** A face whose client factory reads the host's current roster, as the face requires. */
const setup = Effect.gen(function*() {
  const { clients } = yield* makeClients
  const dials = yield* Ref.make(0)
  const roster = yield* Ref.make<ReadonlyArray<string>>(["stopwatch"])
  const face = yield* Face.make({
    core: { surface: Board, expose: boardExpose },
    surfaces: withStopwatch,
    client: Effect.gen(function*() {
      yield* Ref.update(dials, (n) => n + 1)
      const standing = yield* Ref.get(roster)
      return {
        core: clients.core,
        clients: Object.fromEntries(Object.entries(clients.clients).filter(([key]) => standing.includes(key)))
      }
    }),
    coalesce: "1 millis"
  })
  const c = yield* connectTo(face)
  // The host's roster moves only when the face accepts the move; the next dial reads it.
  const move = (surfaces: Parameters<typeof face.reroster>[0]) =>
    face.reroster(surfaces).pipe(Effect.tap(() => Ref.set(roster, Object.keys(surfaces))))
  return { c, face, dials, move }
})

const toolNames = (c: Effect.Success<typeof setup>["c"]) =>
  Effect.promise(() => c.client.listTools()).pipe(Effect.map((r) => r.tools.map((t) => t.name).sort()))

describe("reroster", () => {
  it.live("a roster move replaces both lists, re-dials the client and sends both list_changed notifications", () =>
    Effect.gen(function*() {
      const { c, dials, move } = yield* setup
      assert.include(yield* toolNames(c), "stopwatch_watch_lap")
      yield* call(c, "tasks_open")
      const before = yield* Ref.get(dials)
      yield* move({})
      assert.notInclude(yield* toolNames(c), "stopwatch_watch_lap")
      const resources = (yield* Effect.promise(() => c.client.listResources())).resources.map((r) => r.uri)
      assert.notInclude(resources, "surface://cells/stopwatch/laps")
      assert.sameMembers([yield* Queue.take(c.listChanged), yield* Queue.take(c.listChanged)], ["tools", "resources"])
      yield* call(c, "tasks_open")
      assert.strictEqual(yield* Ref.get(dials), before + 1)
    }))

  it.live("a refused roster leaves the old one serving and says why, naming both claimants", () =>
    Effect.gen(function*() {
      const { c, face, move } = yield* setup
      const before = yield* toolNames(c)
      const generation = yield* face.roster.generation
      const refused = yield* Effect.flip(move({ tasks: { surface: Stopwatch, expose: stopwatchExpose } }))
      assert.include(refused.message, `"tasks"`)
      assert.include(refused.message, "collection")
      assert.deepStrictEqual(yield* toolNames(c), before)
      assert.strictEqual(yield* face.roster.generation, generation)
      assert.deepStrictEqual((yield* call(c, "stopwatch_watch_lap")).structuredContent, { value: 1 })
    }))

  it.live("a retired tool is refused by name with the retirement it was, never as unknown", () =>
    Effect.gen(function*() {
      const { c, move } = yield* setup
      yield* move({ stopwatch: { surface: Stopwatch, expose: { cells: { laps: true } } } })
      const narrowed = yield* call(c, "stopwatch_watch_lap")
      assert.isTrue(narrowed.isError)
      assert.include(textOf(narrowed), "stopwatch_watch_lap")
      assert.include(textOf(narrowed), "no longer exposes")
      yield* move({})
      const left = yield* call(c, "stopwatch_wait", { seconds: 0 })
      assert.isTrue(left.isError)
      assert.include(textOf(left), "left")
    }))

  it.live("a sibling that empties in two steps and then leaves keeps every tombstone", () =>
    Effect.gen(function*() {
      const { c, move } = yield* setup
      const seen = (yield* toolNames(c)).filter((name) => name.startsWith("stopwatch_"))
      assert.sameMembers(seen, ["stopwatch_wait", "stopwatch_watch_lap"])
      yield* move({ stopwatch: { surface: Stopwatch, expose: { cells: { laps: true } } } })
      yield* move({ stopwatch: { surface: Stopwatch, expose: {} } })
      yield* move({})
      for (const name of seen) {
        const result = yield* call(c, name, name === "stopwatch_wait" ? { seconds: 0 } : {})
        assert.isTrue(result.isError)
        assert.notInclude(textOf(result), "unknown")
        assert.include(textOf(result), name)
      }
      const unknown = yield* Effect.flip(
        Effect.tryPromise(() => c.client.callTool({ name: "never_served", arguments: {} }))
      )
      assert.include(String(unknown.cause), "unknown tool")
    }))

  it.live("subscriptions the new roster cannot serve end, and survivors keep receiving updates", () =>
    Effect.gen(function*() {
      const { c, move } = yield* setup
      yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/stopwatch/laps" }))
      yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/focus" }))
      yield* move({})
      // The ended subscription gets one last update, so its host re-reads and learns it is retired.
      assert.strictEqual(yield* Queue.take(c.updated), "surface://cells/stopwatch/laps")
      const retired = yield* Effect.flip(
        Effect.tryPromise(() => c.client.readResource({ uri: "surface://cells/stopwatch/laps" }))
      )
      assert.include(String(retired.cause), "left")
      yield* call(c, "board_focus", { value: "after the move" })
      assert.strictEqual(yield* Queue.take(c.updated), "surface://cells/focus")
      yield* call(c, "board_focus", { value: "again" })
      assert.strictEqual(yield* Queue.take(c.updated), "surface://cells/focus")
      assert.strictEqual(yield* Queue.size(c.updated), 0)
    }))

  it.live("a sibling map handed back after being changed in place is a move: both lists are announced and the subscriptions it retired end", () =>
    Effect.gen(function*() {
      const { c, face } = yield* setup
      // One map object, kept by the caller and changed under the face's feet.
      const surfaces: Record<string, Bundle.Sibling> = { ...withStopwatch }
      yield* face.reroster(surfaces)
      assert.sameMembers([yield* Queue.take(c.listChanged), yield* Queue.take(c.listChanged)], ["tools", "resources"])
      yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/stopwatch/laps" }))
      delete surfaces["stopwatch"]
      // Nothing moved yet: the roster serves its own copy of what it was handed.
      assert.include(yield* toolNames(c), "stopwatch_watch_lap")
      yield* face.reroster(surfaces)
      assert.sameMembers([yield* Queue.take(c.listChanged), yield* Queue.take(c.listChanged)], ["tools", "resources"])
      assert.notInclude(yield* toolNames(c), "stopwatch_watch_lap")
      // The retired subscription ends with one last update, so its host re-reads and learns why.
      assert.strictEqual(yield* Queue.take(c.updated), "surface://cells/stopwatch/laps")
      const retired = yield* Effect.flip(
        Effect.tryPromise(() => c.client.readResource({ uri: "surface://cells/stopwatch/laps" }))
      )
      assert.include(String(retired.cause), "left")
    }))
})
