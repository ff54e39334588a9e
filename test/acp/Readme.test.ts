// docs/acp.md shows exactly examples/acp/quickstart.ts and examples/acp/toolset.ts, and
// each agent, started as a child process, answers an editor over stdio as its code says.
import * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { Readable, Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { ScriptedEditor } from "effect-surface/acp"
import { entry, tempDir } from "../client/servers.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8")

describe("docs/acp.md: Back an ACP turn", () => {
  it("shows exactly the ACP quickstart and the session toolset example that the type check and the tests below run", () => {
    for (const name of ["quickstart", "toolset"]) {
      const block = new RegExp(`\\(\`examples/acp/${name}\\.ts\`\\):\\n\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(
        read("../../docs/acp.md")
      )?.[1]
      assert.strictEqual(block, read(`../../examples/acp/${name}.ts`))
    }
  })

  it.live(
    "the quickstart agent reads the README of the session's folder through the editor and says how long it is",
    () =>
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
        const session = yield* editor.newSession({ cwd: "/home/ada/shop" })
        assert.strictEqual((yield* editor.prompt(session, "go")).stopReason, "end_turn")
        assert.deepStrictEqual(
          (yield* editor.requests("fs/read_text_file")).map((request) =>
            (request.params as { readonly path: string }).path
          ),
          ["/home/ada/shop/README.md"],
          "the session's own folder, not a fixed path"
        )
        assert.deepStrictEqual(yield* editor.updates, [{
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "12 characters" }
        }])
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the toolset example asks the person, then reads the graph of the memory server its editor sent",
    () =>
      Effect.gen(function*() {
        const child = yield* Effect.acquireRelease(
          Effect.sync(() =>
            spawn(process.execPath, ["--conditions=effect-surface-source", "examples/acp/toolset.ts"], { cwd: root })
          ),
          (child) => Effect.sync(() => child.kill())
        )
        const stream = Acp.ndJsonStream(
          Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
          Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>
        )
        const editor = yield* ScriptedEditor.connect(stream, {
          script: {
            "session/request_permission": ScriptedEditor.answer({
              outcome: { outcome: "selected", optionId: "allow-once" }
            })
          }
        })
        const file = Path.join(yield* tempDir, "memory.jsonl")
        const session = yield* editor.newSession({
          mcpServers: [{
            name: "memory",
            command: process.execPath,
            args: [entry("server-memory")],
            env: [{ name: "MEMORY_FILE_PATH", value: file }]
          }]
        })
        assert.strictEqual((yield* editor.prompt(session, "go")).stopReason, "end_turn")
        assert.deepStrictEqual((yield* editor.requests()).map((r) => r.method), ["session/request_permission"])
        const chunks = (yield* editor.updates).flatMap((u) =>
          u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []
        )
        assert.deepStrictEqual(chunks.map((text) => JSON.parse(text)), [{ entities: [], relations: [] }])
      }),
    { timeout: 60_000 }
  )
})
