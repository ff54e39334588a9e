// The toolset's call path against servers no one here wrote: the official SDK v2 (2.4) in both
// eras, fastmcp 4.20 and server-everything (both on the 1.x SDK, 2025-11-25), each a child process
// over stdio. A server's progress reaches the Effect caller's `Progress` and a Promise caller's
// callback; a handler's form answer that does not fit the server's schema is refused before it is
// sent; a tool's tagged failure keeps its structured detail; and `null` for an optional argument is
// read as the argument left out, which these servers' own schemas would refuse.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Progress } from "effect-surface"
import { mcpTools, McpCallResult, McpToolset } from "effect-surface/client"
import type { McpConfig, McpToolError } from "effect-surface/client"
import { fileURLToPath } from "node:url"
import { everythingStdio } from "../client/servers.ts"

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

const sdk2 = (protocol: McpConfig.Protocol): McpConfig.Stdio => ({
  name: "sdk2",
  type: "stdio",
  command: process.execPath,
  args: [fixture("calls-sdk2.ts")],
  protocol
})

const fastmcp: McpConfig.Stdio = {
  name: "fast",
  type: "stdio",
  command: process.execPath,
  args: [fixture("calls-fastmcp.ts")]
}

// Each server that writes its own tools here, with the era it is spoken to in.
const written = [
  { label: "the SDK v2 server on 2026-07-28", server: sdk2("2026-07-28"), key: "sdk2" },
  { label: "the SDK v2 server on 2025-11-25", server: sdk2("2025-11-25"), key: "sdk2" },
  { label: "the fastmcp server (2025-11-25)", server: fastmcp, key: "fast" }
] as const

// A `Progress` with a token, collecting what it is told, as a handler served here would hold one.
const collecting = Effect.gen(function*() {
  const seen: Array<Progress.Notification> = []
  const progress = yield* Progress.make("caller", (notification) => Effect.sync(() => void seen.push(notification)))
  return { seen, progress }
})

const opened = (servers: ReadonlyArray<McpConfig.Server>, options?: Parameters<typeof mcpTools>[1]) =>
  Effect.acquireRelease(
    Effect.promise(() => mcpTools(servers, options)),
    (toolset) => Effect.promise(() => toolset.close())
  )

describe("the toolset's calls against servers no one here wrote", () => {
  for (const { key, label, server } of written) {
    it.live(
      `${label}: progress reaches the Effect caller's Progress and a Promise caller's callback`,
      () =>
        Effect.gen(function*() {
          const toolset = yield* McpToolset.make([server])
          const { progress, seen } = yield* collecting
          const answer = yield* toolset.call(`${key}__count`, { to: 3 }).pipe(
            Effect.provideService(Progress.Progress, progress)
          )
          assert.include(McpCallResult.textOf(answer), "counted to 3")
          assert.deepStrictEqual(seen.map((n) => [n.progress, n.total]), [[1, 3], [2, 3], [3, 3]])
          // Without a Progress in context, no token is asked for.
          assert.notInclude(McpCallResult.textOf(yield* toolset.call(`${key}__count`, { to: 1 })), "with progress")

          const promised = yield* opened([server])
          const reported: Array<number> = []
          yield* Effect.promise(() =>
            promised.tools[`${key}__count`]!.execute({ to: 2 }, {
              onProgress: (update) => reported.push(update.progress)
            })
          )
          assert.deepStrictEqual(reported, [1, 2])
        }),
      60_000
    )

    it.live(
      `${label}: a form answer that does not fit the server's schema is refused naming the field, never sent`,
      () =>
        Effect.gen(function*() {
          const toolset = yield* McpToolset.make([server], {
            elicit: () => ({ action: "accept", content: { confirm: 12345 } })
          })
          const refused = yield* Effect.flip(toolset.call(`${key}__deploy`, { env: "prod" }))
          assert.include(refused.message, "confirm")
          assert.notInclude(refused.message, "confirm=12345")
          const fitting = yield* McpToolset.make([server], {
            elicit: () => ({ action: "accept", content: { confirm: true } })
          })
          assert.include(
            McpCallResult.textOf(yield* fitting.call(`${key}__deploy`, { env: "prod" })),
            "deploy accept: confirm=true"
          )
        }),
      60_000
    )

    it.live(
      `${label}: a tagged failure keeps its structured detail, in the Effect and the Promise API`,
      () =>
        Effect.gen(function*() {
          const toolset = yield* McpToolset.make([server])
          const failed = yield* Effect.flip(toolset.call(`${key}__add_note`, { body: " " }))
          assert.strictEqual(failed._tag, "McpToolError")
          assert.strictEqual((failed as McpToolError).structuredContent?.["_tag"], "EmptyNote")
          const promised = yield* opened([server])
          const rejected = yield* Effect.promise(() =>
            promised.tools[`${key}__add_note`]!.execute({ body: "" }).then(() => undefined, (error: unknown) => error)
          )
          assert.strictEqual((rejected as McpToolError).structuredContent?.["_tag"], "EmptyNote")
        }),
      60_000
    )

    it.live(`${label}: null for an optional argument is read as the argument left out`, () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([server])
        const answer = yield* toolset.call(`${key}__list_notes`, { all: null, tag: null })
        assert.strictEqual(McpCallResult.textOf(answer), "args {}")
        const kept = yield* toolset.call(`${key}__list_notes`, { all: true, tag: null })
        assert.strictEqual(McpCallResult.textOf(kept), "args {\"all\":true}")
      }), 60_000)
  }

  it.live(
    "server-everything: its long operation's progress reaches the caller, and a form answer of the wrong type is refused",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio()], {
          elicit: () => ({ action: "accept", content: { name: "Ada", check: 12345 } })
        })
        const { progress, seen } = yield* collecting
        yield* toolset.call("everything__trigger-long-running-operation", { duration: 0.3, steps: 3 }).pipe(
          Effect.provideService(Progress.Progress, progress)
        )
        assert.deepStrictEqual(seen.map((n) => n.progress), [1, 2, 3])
        const tools = yield* toolset.tools
        assert.isTrue(tools.has("everything__trigger-elicitation-request"))
        const refused = yield* Effect.flip(toolset.call("everything__trigger-elicitation-request", {}))
        assert.include(refused.message, "value at \"check\": expected a boolean, got 12345")
      }),
    60_000
  )
})
