// The official MCP conformance suite (pinned in package.json), run as a child process from the
// project's root: its output echoed as it comes and kept for the caller to read its verdicts.
import { Effect, Stream } from "effect"
import { ChildProcess } from "effect/process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const suite = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url))

/** One run of the suite with `args` (after its entry): its exit code and everything it printed. */
export const run = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const child = yield* ChildProcess.make(process.execPath, [suite, ...args], {
      cwd: root,
      stdout: "pipe",
      stderr: "inherit",
      extendEnv: true
    })
    let output = ""
    yield* child.stdout.pipe(
      Stream.decodeText,
      Stream.runForEach((text) =>
        Effect.sync(() => {
          output += text
          process.stdout.write(text)
        })
      )
    )
    return { code: Number(yield* child.exitCode), output }
  }).pipe(Effect.scoped)
