import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { program } from "../examples/quickstart.ts"

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8")

describe("README", () => {
  it("shows exactly the quickstart example that the type check and this test run", () => {
    const readme = read("../README.md")
    const block = /## Example\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    assert.strictEqual(block, read("../examples/quickstart.ts"))
  })

  it.effect("the quickstart example runs and answers what its comment says", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* program, 2)
    }))
})
