// `npm run example:toolset` runs as a fresh clone would run it: its own process, the three reference
// servers from the dev dependencies, and a clean exit.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

describe("the toolset example", () => {
  it.live(
    "connects the three servers, prints the projected names, calls one of each and exits cleanly",
    () =>
      Effect.gen(function*() {
        const stdout = yield* Effect.promise(() =>
          new Promise<string>((resolve, reject) =>
            execFile(process.execPath, ["--conditions=effect-surface-source", "examples/toolset/main.ts"], {
              cwd: root
            }, (error, out) => error === null ? resolve(out) : reject(error))
          )
        )
        for (
          const line of [
            "tools from 3 servers:",
            "  everything__echo",
            "  memory__read_graph",
            "  files__read_text_file",
            "everything__echo → Echo: hello, toolset"
          ]
        ) {
          assert.include(stdout, line)
        }
        assert.include(stdout, "memory__delete_entities → PolicyDenied")
        assert.include(stdout, "→ McpToolError: MCP tool error: Access denied")
      }),
    { timeout: 60_000 }
  )
})
