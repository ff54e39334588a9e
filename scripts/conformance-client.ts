// `npm run conformance:client`: the official MCP conformance suite's client scenarios against the
// client toolset, through the runner in `examples/conformance-client` (built only on the public
// `effect-surface/client` API), once for each revision (`--requirements 2026-07-28`, stateless, and
// `--requirements 2025-11-25`, sessions): exactly the scenarios each revision requires, frozen at its
// release. Exits non-zero when either run fails a scored scenario that
// `examples/conformance-client/expected-failures.yaml` does not list with its reason, or when a
// scenario the suite does not score fails without being listed there.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as Suite from "./suite.ts"

const expected = fileURLToPath(new URL("../examples/conformance-client/expected-failures.yaml", import.meta.url))
// With Node's compile cache (as the example's own scripts start it): the suite starts every scenario's
// client at once, and from the second on each reads its modules compiled, at about half the CPU.
const runner =
  `${process.execPath} --conditions=effect-surface-source --import ./examples/compileCache.ts examples/conformance-client/main.ts`

// The scenarios listed as expected to fail, each under a comment giving its reason.
const listed: ReadonlySet<string> = new Set(
  existsSync(expected)
    ? Array.from(readFileSync(expected, "utf8").matchAll(/^\s*-\s*(\S+)\s*$/gm), (m) => m[1] ?? "")
    : []
)

// The unscored scenarios that failed without being listed: the lines under "Not scored for …".
const unlistedUnscored = (output: string): ReadonlyArray<string> => {
  const block = output.split(/Not scored for [^\n]*\n/)[1] ?? ""
  return Array.from(block.matchAll(/^\s*✗ (\S+)/gm), (m) => m[1] ?? "").filter((name) => !listed.has(name))
}

/** The revisions a client is checked against, newest first: each is one run of the suite. */
const revisions = ["2026-07-28", "2025-11-25"] as const

// One run of the suite: its exit code (failed too when an unscored scenario failed) and why.
const run = (revision: string) =>
  Effect.gen(function*() {
    yield* Console.log(`conformance:client: --requirements ${revision}`)
    const { code, output } = yield* Suite.run([
      "client",
      "--command",
      runner,
      "--requirements",
      revision,
      // The suite starts every scenario's client at once (39 processes for 2026-07-28); on a small,
      // busy machine their start alone can pass the default 30 s, and did pass 120 s.
      "--timeout",
      "300000",
      ...(existsSync(expected) ? ["--expected-failures", expected] : [])
    ])
    const unscored = unlistedUnscored(output)
    const why = Suite.verdict(output, unscored.length > 0 ? `unscored, not listed: ${unscored.join(", ")}` : "")
    return { code: code === 0 && unscored.length > 0 ? 1 : code, why }
  })

const main = Effect.gen(function*() {
  const only = process.argv.slice(2).filter((arg) => (revisions as ReadonlyArray<string>).includes(arg))
  const chosen = only.length === 0 ? revisions : revisions.filter((revision) => only.includes(revision))
  const runs = yield* Effect.forEach(chosen, run)
  yield* Effect.forEach(
    chosen,
    (revision, i) => Console.log(`conformance:client: ${revision}: ${Suite.outcome(runs[i])}`)
  )
  return runs.find((run) => run.code !== 0)?.code ?? 0
}).pipe(Effect.provide(NodeServices.layer))

NodeRuntime.runMain(Effect.flatMap(main, (code) => Effect.sync(() => process.exit(code))))
