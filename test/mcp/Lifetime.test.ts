// A session lives as long as its transport: what it owns (subscriptions, their pool leases, its
// roster listeners, its running handlers) ends when the host disconnects, not when the server does.
// Under Streamable HTTP every MCP session is one `Session`, so anything left behind here leaks per host.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Logger, Ref, Scope } from "effect"
import * as Face from "../../src/mcp/face/Face.ts"
import { eventually, Gauge, level, makeGauge } from "./gauge.ts"
import { connectTo } from "./harness.ts"

const gaugeFace = Effect.gen(function*() {
  const gauge = yield* makeGauge()
  const face = yield* Face.make({
    core: { surface: Gauge, expose: { cells: { level: true } } },
    client: Effect.succeed({ core: gauge.client, clients: {} }),
    coalesce: "1 millis"
  })
  return { gauge, face }
})

describe("a session's lifetime", () => {
  it.live("hosts that disconnect leave no subscription open: the URI's one follow ends with the last of them, and a roster move does not re-open it", () =>
    Effect.gen(function*() {
      const { face, gauge } = yield* gaugeFace
      // Five hosts, each connected in a scope the test never closes: only the disconnect ends them.
      const hosts = yield* Effect.forEach(
        [1, 2, 3, 4, 5],
        () => Effect.flatMap(Scope.make(), (scope) => connectTo(face).pipe(Scope.provide(scope)))
      )
      for (const host of hosts) yield* Effect.promise(() => host.client.subscribeResource({ uri: level }))
      // One follow of the URI, shared by the five.
      assert.strictEqual(yield* eventually(Ref.get(gauge.live), (n) => n === 1), 1)
      assert.strictEqual(yield* face.watching, 1)

      for (const host of hosts) {
        assert.strictEqual(yield* face.watching, 1)
        yield* Effect.promise(() => host.client.close())
        yield* host.session.closed.pipe(Effect.timeout("5 seconds"))
      }
      // `closed` completes after the session's own cleanup, so nothing is left to wait for.
      assert.strictEqual(yield* Ref.get(gauge.live), 0)
      assert.strictEqual(yield* face.watching, 0)

      yield* face.reroster({})
      yield* face.reroster({})
      yield* Effect.sleep("100 millis")
      assert.strictEqual(yield* Ref.get(gauge.live), 0)
      assert.strictEqual(yield* Ref.get(gauge.opens), 1)
    }))

  it.live("closing the scope a session was connected in ends it, its subscriptions and `closed` with it", () =>
    Effect.gen(function*() {
      const { face, gauge } = yield* gaugeFace
      const scope = yield* Scope.make()
      const host = yield* connectTo(face).pipe(Scope.provide(scope))
      yield* Effect.promise(() => host.client.subscribeResource({ uri: level }))
      assert.strictEqual(yield* eventually(Ref.get(gauge.live), (n) => n === 1), 1)
      yield* Scope.close(scope, Exit.void)
      yield* host.session.closed.pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(yield* Ref.get(gauge.live), 0)
      assert.strictEqual(yield* face.watching, 0)
    }))

  it.live("a defect reaches the host as one sentence, never a stack trace, and is logged whole on the server", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      const capture = Logger.make((options) => {
        logged.push(
          `${options.logLevel} ${String(options.message)} ${options.cause.reasons.length > 0 ? "with cause" : ""}`
        )
      })
      yield* Effect.gen(function*() {
        const { gauge } = yield* gaugeFace
        const face = yield* Face.make({
          core: { surface: Gauge, expose: { cells: { level: true } } },
          client: Effect.succeed({ core: gauge.client, clients: {} }),
          resources: {
            resources: { "test://broken": { name: "broken", read: Effect.die(new Error("the disk is on fire")) } }
          }
        })
        const host = yield* connectTo(face)
        const failed = yield* Effect.flip(Effect.tryPromise(() => host.client.readResource({ uri: "test://broken" })))
        const text = String(failed.cause)
        assert.include(text, "-32603")
        assert.include(text, "the disk is on fire")
        assert.notMatch(text, /\n\s+at /)
        assert.notInclude(text, ".ts:")
      }).pipe(Effect.provide(Logger.layer([capture])))
      assert.isTrue(logged.some((line) => line.startsWith("Error") && line.includes("with cause")), logged.join("\n"))
    }))
})
