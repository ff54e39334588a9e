// The README's ACP section shows exactly examples/acp/quickstart.ts, and that agent, started as a
// child process, answers an editor over stdio as its code says.
import * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { Readable, Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { ScriptedEditor } from "effect-surface/acp"

const root = fileURLToPath(new URL("../..", import.meta.url))
const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8")

describe("README: Back an ACP turn", () => {
  it("shows exactly the ACP quickstart that the type check and the test below run", () => {
    const block = /\(`examples\/acp\/quickstart\.ts`\):\n\n```ts\n([\s\S]*?)```/.exec(read("../../README.md"))?.[1]
    assert.strictEqual(block, read("../../examples/acp/quickstart.ts"))
  })

  it.live("the quickstart agent reads a file through the editor and says how long it is", () =>
    Effect.gen(function*() {
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, ["--conditions=effect-surface-source", "examples/acp/quickstart.ts"], { cwd: root })
        ),
        (child) => Effect.sync(() => child.kill())
      )
      const stream = Acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>
      )
      const editor = yield* ScriptedEditor.connect(stream, {
        script: { "fs/read_text_file": ScriptedEditor.answer({ content: "twelve chars" }) }
      })
      assert.strictEqual((yield* editor.prompt(yield* editor.newSession(), "go")).stopReason, "end_turn")
      assert.deepStrictEqual(yield* editor.updates, [{
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "12 characters" }
      }])
    }), { timeout: 60_000 })
})
