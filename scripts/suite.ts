// The official MCP conformance suite (pinned in package.json), run as a child process from the
// project's root: its output echoed as it comes and kept for the caller to read its verdicts.
import { Effect, Stream } from "effect"
import { ChildProcess } from "effect/process"
import { fileURLToPath } from "node:url"
import { stripVTControlCharacters } from "node:util"

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

// The lines that follow `heading` in the suite's baseline verdict, up to the next blank line.
const block = (lines: ReadonlyArray<string>, heading: string): ReadonlyArray<string> => {
  const start = lines.findIndex((line) => line.startsWith(heading))
  if (start < 0) return []
  const end = lines.findIndex((line, i) => i > start && line.trim() === "")
  return lines.slice(start + 1, end < 0 ? undefined : end).map((line) => line.trim().replace(/^[✗✓]\s*/, ""))
}

/**
 * What made a run fail, in one line: the baseline's unexpected failures and stale entries (a
 * scenario listed as failing that now passes), then the caller's own `reasons` (empty ones left
 * out). A long run's log is read from its tail, so the caller prints this last.
 */
export const verdict = (output: string, ...reasons: ReadonlyArray<string>): string => {
  const lines = stripVTControlCharacters(output).split("\n")
  const unexpected = block(lines, "Unexpected failures")
  const stale = block(lines, "Stale baseline entries")
  return [
    unexpected.length > 0 ? `unexpected: ${unexpected.join(", ")}` : "",
    stale.length > 0 ? `stale in the baseline: ${stale.join(", ")}` : "",
    ...reasons
  ].filter((part) => part !== "").join("; ")
}

/** A run's closing line: "passed", or its exit code and why. */
export const outcome = (run: { readonly code: number; readonly why: string } | undefined): string =>
  run === undefined || run.code === 0 ? "passed" : `failed (exit ${run.code})${run.why === "" ? "" : `: ${run.why}`}`
