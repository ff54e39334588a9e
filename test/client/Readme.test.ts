// The toolset snippets of docs/toolset.md are the files under examples/toolset/, which the type check compiles.
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8")

describe("docs/toolset.md", () => {
  it("shows exactly the Effect, Promise, Toolkit, local-surface, storage, question, resource and sign-in examples that the type check compiles", () => {
    const section = read("../../docs/toolset.md")
    const blocks = Array.from(section.matchAll(/```ts\n([\s\S]*?)```/g), (m) => m[1])
    assert.deepStrictEqual(
      blocks,
      [
        "effect.ts",
        "promise.ts",
        "toolkit.ts",
        "local.ts",
        "stores.ts",
        "wake.ts",
        "questions.ts",
        "reach.ts",
        "signin.ts",
        "signin-promise.ts"
      ].map((file) => read(`../../examples/toolset/${file}`))
    )
  })
})
