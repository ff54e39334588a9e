// Behaviour 1, names: `${server}__${tool}` verbatim when legal, otherwise rewritten to a legal name
// with a hash of the original that every process computes alike; two servers with one name both get
// a suffix from their identity, a diagnostic names them, and nothing is dropped.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { McpNames, McpToolset } from "effect-surface/client"
import { execFileSync } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { memoryStdio, tempDir } from "./servers.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const Text = Schema.String
const LegalPart = Schema.String.check(Schema.isPattern(/^[a-zA-Z0-9-]{1,20}$/))

describe("projected names", () => {
  it.prop("every projected name is legal for ^[a-zA-Z0-9_-]{1,64}$, whatever the server and tool are called", [
    Text,
    Text
  ], ([server, tool]) => {
    assert.match(McpNames.project(server, tool), /^[a-zA-Z0-9_-]{1,64}$/)
  })

  it.prop("a name that is already legal is used verbatim", [LegalPart, LegalPart], ([server, tool]) => {
    assert.strictEqual(McpNames.project(server, tool), `${server}__${tool}`)
  })

  it.prop(
    "a rewritten name is the same on every call and ends with the hash of the original",
    [Text, Text],
    ([server, tool]) => {
      const name = McpNames.project(server, tool)
      assert.strictEqual(McpNames.project(server, tool), name)
      if (name !== `${server}__${tool}`) assert.isTrue(name.endsWith(`_${McpNames.hash(`${server}__${tool}`)}`))
    }
  )

  it.prop("two different tools never project onto one name", [Text, Text, Text], ([server, a, b]) => {
    if (a !== b) assert.notStrictEqual(McpNames.project(server, a), McpNames.project(server, b))
  })

  it("names with dots, spaces, non-ASCII letters or past 64 characters are rewritten, clamped to 64", () => {
    const long = "x".repeat(90)
    for (const tool of ["search.docs", "read file", "naïve", long]) {
      const name = McpNames.project("docs", tool)
      assert.notStrictEqual(name, `docs__${tool}`)
      assert.isAtMost(name.length, 64)
      assert.match(name, /_[0-9a-f]{8}$/)
    }
    assert.strictEqual(McpNames.project("docs", "search.docs").slice(0, 17), "docs__search_docs")
  })

  it("another process computes the same rewritten names and server suffixes", () => {
    const inputs = [["docs", "search.docs"], ["a b", "c"], ["ünï", "cödé"], ["s", "y".repeat(100)]] as const
    const identities = [{ name: "local", identity: ["stdio", "node", ["a.js"], null] }, {
      name: "local",
      identity: ["stdio", "node", ["b.js"], null]
    }]
    const script = `import { McpNames } from "effect-surface/client"
      const inputs = ${JSON.stringify(inputs)}
      console.log(JSON.stringify({ names: inputs.map(([s, t]) => McpNames.project(s, t)), keys: McpNames.serverKeys(${
      JSON.stringify(identities)
    }).keys }))`
    const output = execFileSync(process.execPath, [
      "--conditions=effect-surface-source",
      "--input-type=module",
      "-e",
      script
    ], { cwd: root, encoding: "utf8" })
    const theirs = JSON.parse(output) as { names: Array<string>; keys: Array<string> }
    assert.deepStrictEqual(theirs.names, inputs.map(([s, t]) => McpNames.project(s, t)))
    assert.deepStrictEqual(theirs.keys, McpNames.serverKeys(identities).keys)
  })

  it("two servers sharing a name both get a suffix from their identity; reordering the list keeps each backend's key", () => {
    const a = { name: "local", identity: ["stdio", "node", ["a.js"], null] }
    const b = { name: "local", identity: ["stdio", "node", ["b.js"], null] }
    const other = { name: "docs", identity: ["sse", "https://x/sse"] }
    const forward = McpNames.serverKeys([a, other, b])
    const backward = McpNames.serverKeys([b, other, a])
    assert.strictEqual(forward.keys[1], "docs")
    assert.notStrictEqual(forward.keys[0], forward.keys[2])
    assert.match(forward.keys[0] ?? "", /^local_[0-9a-f]{8}$/)
    assert.strictEqual(forward.keys[0], backward.keys[2])
    assert.strictEqual(forward.keys[2], backward.keys[0])
    assert.deepStrictEqual(forward.collisions, [{
      name: "local",
      keys: [forward.keys[0] ?? "", forward.keys[2] ?? ""]
    }])
  })
})

describe("colliding servers alike but for their environment or headers", () => {
  it("entries with one command but different env, or one URL but different headers, keep their keys whatever the order", () => {
    const a = { name: "local", identity: ["stdio", "node", ["s.js"], null], particulars: { env: { KEY: "a" } } }
    const b = { name: "local", identity: ["stdio", "node", ["s.js"], null], particulars: { env: { KEY: "b" } } }
    const forward = McpNames.serverKeys([a, b]).keys
    const backward = McpNames.serverKeys([b, a]).keys
    assert.notStrictEqual(forward[0], forward[1])
    assert.deepStrictEqual(forward, [...backward].reverse())
    // Particulars are read only when the identity cannot tell the entries apart.
    const c = { name: "local", identity: ["stdio", "node", ["c.js"], null], particulars: { env: { KEY: "c" } } }
    assert.strictEqual(
      McpNames.serverKeys([a, c]).keys[1],
      McpNames.serverKeys([c, { ...a, identity: ["stdio", "node", ["other.js"], null] }]).keys[0]
    )
    assert.notInclude(forward.join(""), "KEY")
    const x = { name: "docs", identity: ["sse", "https://x/sse"], particulars: { headers: { "x-account": "x" } } }
    const y = { name: "docs", identity: ["sse", "https://x/sse"], particulars: { headers: { "x-account": "y" } } }
    assert.deepStrictEqual(McpNames.serverKeys([x, y]).keys, [...McpNames.serverKeys([y, x]).keys].reverse())
  })
})

describe("colliding servers, against two real server-memory processes", () => {
  it.live(
    "two entries alike but for their environment reach the same backend under the same name, in either order",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const a = memoryStdio(Path.join(dir, "a.jsonl"))
        const b = memoryStdio(Path.join(dir, "b.jsonl"))
        const keyOfA = yield* Effect.scoped(Effect.gen(function*() {
          const toolset = yield* McpToolset.make([a, b])
          const keys = [...new Set([...(yield* toolset.tools).keys()].map((n) => n.split("__")[0] ?? ""))]
          // Write through the first key; whichever backend it names now holds the entity.
          yield* toolset.call(`${keys[0]}__create_entities`, {
            entities: [{ name: "written", entityType: "t", observations: [] }]
          })
          return keys[0] ?? ""
        }))
        const reordered = yield* McpToolset.make([b, a])
        const read = yield* reordered.call(`${keyOfA}__read_graph`, {})
        assert.include(JSON.stringify(read), "written", "the name still reaches the backend it named before")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "both servers named memory keep all their tools under distinct suffixed names, and a server-name-collision diagnostic names them",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const seen: Array<string> = []
        const toolset = yield* McpToolset.make([
          memoryStdio(Path.join(dir, "a.jsonl")),
          memoryStdio(Path.join(dir, "b.jsonl"))
        ], { onDiagnostic: (d) => void seen.push(d.kind) })
        const names = [...(yield* toolset.tools).keys()]
        const keys = [...new Set(names.map((n) => n.split("__")[0]))]
        assert.strictEqual(keys.length, 2)
        for (const key of keys) assert.match(key ?? "", /^memory_[0-9a-f]{8}$/)
        assert.strictEqual(names.filter((n) => n.endsWith("__read_graph")).length, 2)
        const diagnostics = yield* toolset.diagnostics
        const collision = diagnostics.find((d) => d.kind === "server-name-collision")
        assert.isDefined(collision)
        assert.include(seen, "server-name-collision")
        if (collision?.kind === "server-name-collision") assert.sameMembers([...collision.keys], keys)

        // Each name reaches its own backend: an entity created through one is not in the other.
        const [first, second] = keys
        yield* toolset.call(`${first}__create_entities`, {
          entities: [{ name: "only-in-a", entityType: "t", observations: [] }]
        })
        const a = yield* toolset.call(`${first}__read_graph`, {})
        const b = yield* toolset.call(`${second}__read_graph`, {})
        assert.include(JSON.stringify(a), "only-in-a")
        assert.notInclude(JSON.stringify(b), "only-in-a")
      }),
    { timeout: 60_000 }
  )
})
