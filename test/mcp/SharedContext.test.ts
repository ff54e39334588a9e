import { assert, describe, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import * as Face from "../../src/mcp/face/Face.ts"
import { Board, boardExpose, makeClients } from "../../examples/board/app.ts"
import { call, drain, host } from "./hostHarness.ts"

describe("a connection shared by every session", () => {
  it.live("carries none of the logging of the request that happened to dial it", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const face = yield* Face.make({
        core: { surface: Board, expose: boardExpose },
        // The dial logs, and leaves a fiber logging for as long as the connection lives.
        client: Effect.gen(function*() {
          yield* Effect.logInfo("SHARED dial")
          yield* Effect.logInfo("SHARED tick").pipe(Effect.repeat(Schedule.spaced("10 millis")), Effect.forkScoped)
          return clients
        })
      })
      const first = yield* host(face)
      const second = yield* host(face)
      yield* Effect.promise(() => first.client.setLoggingLevel("debug"))
      yield* Effect.promise(() => second.client.setLoggingLevel("debug"))
      // The first session's call dials the shared connection.
      yield* call(first, "tasks_open")
      yield* Effect.sleep("100 millis")
      yield* call(second, "tasks_open")
      const heard = [...(yield* drain(first.messages)), ...(yield* drain(second.messages))]
      assert.deepStrictEqual(heard.filter((m) => String(m.data).includes("SHARED")), [])
    }))
})
