// The 2026-07-28 lists: each answers its items under its own key, with the caching hints of the list
// it belongs to (resource templates with the resources), and `resultType: "complete"`.
import { assert, describe, it } from "@effect/vitest"
import { Effect, References } from "effect"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { raw } from "./modern.ts"

describe("the 2026 lists", () => {
  it.live("tools, resources, resource templates and prompts each answer under their key with a caching hint", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      const served = yield* McpHttp.serve({ ...options, http: { port: 0 } }).pipe(
        Effect.provideService(References.MinimumLogLevel, "Warn")
      )
      const cases = [
        ["tools/list", "tools"],
        ["resources/list", "resources"],
        ["resources/templates/list", "resourceTemplates"],
        ["prompts/list", "prompts"]
      ] as const
      for (const [index, [method, key]] of cases.entries()) {
        const { answer, status } = yield* raw(served.url, index + 1, method, {})
        assert.strictEqual(status, 200, method)
        const result = answer.result ?? {}
        assert.isArray(result[key], method)
        assert.strictEqual(result["resultType"], "complete", method)
        assert.isNumber(result["ttlMs"], method)
        assert.strictEqual(result["cacheScope"], "public", method)
      }
      const tools = (yield* raw(served.url, 9, "tools/list", {})).answer.result?.["tools"] as Array<unknown>
      assert.isAbove(tools.length, 0)
    }))
})
