// The doc examples are code a reader copies: each one must compile on its own against the public API
// (`import { … } from "effect-surface"`, `"effect-surface/mcp"`, `"effect-surface/mcp/stdio"`,
// `"effect-surface/wire"`, `"effect-surface/tools"`, `"effect-surface/client"`, `"effect-surface/acp"`,
// `"effect-surface/serve"`, `"effect-surface/cli"`), and every public export has one. Covers the
// surface (the wire face's too), core and face modules.
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))
const surfaceModules = [
  "Client",
  "Expose",
  "Implementation",
  "Log",
  "Project",
  "Store",
  "Surface",
  "WireProtocol"
].map((name) => `src/surface/${name}.ts`)
const sourcesIn = (dir: string) =>
  Fs.readdirSync(Path.join(root, dir)).filter((file) => file.endsWith(".ts")).sort().map((file) => `${dir}/${file}`)
// A module index only re-exports; its exports are documented where they are declared.
const indices = new Set([
  "src/mcp/index.ts",
  "src/mcp/stdio.ts",
  "src/acp/index.ts",
  "src/client/index.ts",
  "src/serve/index.ts",
  "src/guard/index.ts",
  "src/wire/index.ts",
  "src/cli/index.ts"
])
// A module whose examples are fragments that cannot compile on their own; none today.
const fragments = new Set<string>()
const coreModules = sourcesIn("src/core")
const mcpModules = [
  "src/mcp",
  "src/mcp/face",
  "src/mcp/transport",
  "src/mcp/auth",
  "src/mcp/console",
  "src/mcp/v2025",
  "src/mcp/v2026",
  "src/protocol",
  "src/protocol/v2026"
].flatMap(sourcesIn).filter((
  module
) => !indices.has(module))
const acpModules = sourcesIn("src/acp").filter((module) => !indices.has(module))
const clientModules = sourcesIn("src/client").filter((module) => !indices.has(module))
const serveModules = [...sourcesIn("src/serve"), ...sourcesIn("src/guard"), ...sourcesIn("src/wire")].filter((module) =>
  !indices.has(module)
)
const cliModules = sourcesIn("src/cli").filter((module) => !indices.has(module))
// A module whose first comment says `@internal` is a room's own machinery, not public API.
const isInternal = (module: string) =>
  /^\/\*\*((?:(?!\*\/)[\s\S])*)\*\//.exec(Fs.readFileSync(Path.join(root, module), "utf8"))?.[1]?.includes(
    "@internal"
  ) ??
    false
const faceModules = [...mcpModules, ...clientModules, ...acpModules, ...serveModules, ...cliModules].filter((module) =>
  !isInternal(module)
)
// The member kinds are declared in `surface/internal/kinds.ts` and exported from `Surface`: public names, public docs.
/** Every module whose exports must each carry an example. */
const publicModules = [
  ...surfaceModules,
  ...coreModules,
  ...faceModules,
  "src/tools.ts",
  "src/surface/internal/kinds.ts"
]
// Internal modules that declare some public names (exported from a public module) with their examples.
const declaring = ["src/surface/internal/members.ts", "src/mcp/v2025/internal/sessionEntry.ts"]
/** Every module whose examples are compiled. */
const modules = [...publicModules, ...declaring].filter((module) => !fragments.has(module))

interface Doc {
  readonly text: string
  readonly exported: string
}

/** Each doc comment directly followed by an export, with what it exports. */
const docsOf = (source: string): ReadonlyArray<Doc> =>
  Array.from(
    source.matchAll(
      /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export\s+(?:declare\s+)?(?:const|class|interface|type|function|\{)\s*(\w+)/g
    ),
    (m) => ({ text: m[1] ?? "", exported: m[2] ?? "" })
  )

/** Every doc comment, exported or not (a class's static members carry examples too), with the name it documents. */
const allDocsOf = (source: string): ReadonlyArray<Doc> =>
  Array.from(
    source.matchAll(
      /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(?:export\s+)?(?:declare\s+)?(?:static\s+)?(?:readonly\s+)?(?:const|class|interface|type|function|\{)?\s*(\w*)/g
    ),
    (m) => ({ text: m[1] ?? "", exported: m[2] === undefined || m[2] === "" ? "doc" : m[2] })
  )

/** Every `export …` declaration of a module, by name. */
const exportsOf = (source: string): ReadonlyArray<string> =>
  Array.from(
    source.matchAll(/^export\s+(?:declare\s+)?(?:const|class|interface|type|function|\{)\s*(\w+)/gm),
    (m) => m[1] ?? ""
  )

/** The code of each ```ts block in a doc comment, without the comment's leading stars. */
const examplesOf = (doc: string): ReadonlyArray<string> =>
  Array.from(
    doc.matchAll(/```ts\n([\s\S]*?)\n\s*\*\s*```/g),
    (m) => (m[1] ?? "").split("\n").map((line) => line.replace(/^\s*\* ?/, "")).join("\n")
  )

describe("doc examples", () => {
  it("every export of a public module has a doc comment with an example", () => {
    const missing: Array<string> = []
    for (const module of publicModules) {
      const source = Fs.readFileSync(Path.join(root, module), "utf8")
      const documented = new Map(docsOf(source).map((doc) => [doc.exported, doc.text]))
      for (const exported of exportsOf(source)) {
        if (!(documented.get(exported) ?? "").includes("@example")) missing.push(`${module}: ${exported}`)
      }
    }
    assert.deepStrictEqual(missing, [])
  })

  it("every example in the surface, core, MCP, client and ACP modules compiles against the public API", async () => {
    // A dot-directory: the project's own `include` globs never pick it up, so a concurrent type
    // check of the project cannot see these files half-written.
    const dir = Fs.mkdtempSync(Path.join(root, "test/surface/.examples-"))
    try {
      const written: Array<string> = []
      for (const module of modules) {
        const source = Fs.readFileSync(Path.join(root, module), "utf8")
        allDocsOf(source).flatMap((doc) => examplesOf(doc.text).map((code) => ({ code, of: doc.exported })))
          .forEach(({ code, of }, i) => {
            const file = `${module.replace(/^src\//, "").replaceAll("/", "_").replace(/\.ts$/, "")}.${of}.${i}.ts`
            Fs.writeFileSync(Path.join(dir, file), `${code}\nexport {}\n`)
            written.push(file)
          })
      }
      assert.isAbove(written.length, 40)
      Fs.writeFileSync(
        Path.join(dir, "tsconfig.json"),
        JSON.stringify({ extends: "../../../tsconfig.json", include: ["*.ts"] })
      )
      const output = await new Promise<string>((resolve) =>
        execFile(
          process.execPath,
          [Path.join(root, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", Path.join(dir, "tsconfig.json")],
          { cwd: root, maxBuffer: 16 * 1024 * 1024 },
          (_error, stdout) => resolve(stdout)
        )
      )
      // Only the examples' own diagnostics: the sources they import are type-checked by the project.
      const mine = output.split("\n").filter((line) => line.includes(Path.basename(dir)))
      assert.deepStrictEqual(mine, [])
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
