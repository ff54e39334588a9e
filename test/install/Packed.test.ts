// The package as a user's app gets it: `npm pack` in this repository, then, in a new app in a temp dir
// outside it, the README's own install lines with that tarball, and nothing of the repository after
// that — no source condition, no path into it. The TypeScript snippets of the README and of docs/
// type-check there against the installed types; the first app of docs/first-app.md is built there with
// the tsconfig.json the page shows (`declaration: true`); and the quickstart, the first app, the stdio
// servers (answering the SDK's client) and the bin run under the app's own Node: 24 (the app's `node`
// dependency) and the oldest the package declares.
// `npm run test:install`; CI runs it after the tests. It reaches the npm registry for the app's packages.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const repo = fileURLToPath(new URL("../../", import.meta.url))
const manifest = JSON.parse(Fs.readFileSync(Path.join(repo, "package.json"), "utf8")) as {
  readonly version: string
  readonly engines: { readonly node: string }
  readonly devDependencies: Readonly<Record<string, string>>
}
const readme = Fs.readFileSync(Path.join(repo, "README.md"), "utf8")
const docs = Fs.readdirSync(Path.join(repo, "docs")).filter((file) => file.endsWith(".md")).sort()
  .map((file) => ({ name: file.slice(0, -3), text: Fs.readFileSync(Path.join(repo, "docs", file), "utf8") }))
const firstApp = docs.find((page) => page.name === "first-app")?.text ?? ""

// The oldest Node the package declares (`>=22.19` → 22.19.0), run beside the app's own Node 24.
const oldest = `${/(\d+\.\d+(?:\.\d+)?)/.exec(manifest.engines.node)?.[1] ?? ""}.0`.split(".").slice(0, 3).join(".")

/** The first `node` on PATH outside any node_modules whose major version is below 22. */
const olderNode = (process.env["PATH"] ?? "").split(Path.delimiter)
  .filter((dir) => dir !== "" && !dir.split(Path.sep).includes("node_modules"))
  .map((dir) => Path.join(dir, "node"))
  .find((node) => Number(/^v(\d+)\./.exec(spawnSync(node, ["--version"], { encoding: "utf8" }).stdout ?? "")?.[1]) < 22)

const root = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "effect-surface-app-")))
const app = Path.join(root, "app")
const appNode = Path.join(app, "node_modules", ".bin", "node")
const oldestNode = Path.join(root, "oldest", "node_modules", ".bin", "node")

// The app's environment: its own bin directory first, and nothing that points back at this repository.
const env = (): NodeJS.ProcessEnv => {
  const { NODE_OPTIONS: _options, npm_config_prefix: _prefix, ...rest } = process.env
  const path = (rest["PATH"] ?? "").split(Path.delimiter).filter((dir) => !dir.startsWith(repo))
  return { ...rest, PATH: [Path.join(app, "node_modules", ".bin"), ...path].join(Path.delimiter) }
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  spawnSync(command, args, { cwd, env: env(), encoding: "utf8", timeout: 300_000 })

const npm = (args: ReadonlyArray<string>, cwd: string) => {
  const ran = run("npm", ["--loglevel=error", "--no-audit", "--no-fund", ...args], cwd)
  assert.strictEqual(ran.status, 0, `npm ${args.join(" ")}: ${ran.stderr}`)
  return ran.stdout
}

const escaped = (marker: string) => marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The ```sh block after `marker` in `text` (the README unless given), its lines without comments. */
const shellLines = (marker: string, text = readme): ReadonlyArray<string> => {
  const block = new RegExp(`${escaped(marker)}[\\s\\S]*?\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1]
  assert.isDefined(block, `the install lines after "${marker}"`)
  return (block ?? "").split("\n").map((line) => line.replace(/#.*$/, "").trim()).filter((line) => line !== "")
}

/** The fenced `lang` blocks of `text`, each with the path the line before it names (`(path):`), if any. */
const blocks = (text: string, lang: string) =>
  Array.from(text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g")), (match) => {
    const before = text.slice(0, match.index)
    const lead = before.slice(before.lastIndexOf("```") + 3)
    return { named: /\(`([\w/.-]+)`\)[^\n]*:\s*$/.exec(lead)?.[1], code: match[1] ?? "" }
  })

/**
 * Every ```ts block of the README and of docs/ but the first app's, at the example path the text
 * names for it, else under examples/readme/ or examples/docs/.
 */
const snippets = (): ReadonlyArray<{ readonly path: string; readonly code: string }> =>
  [
    { name: "readme", text: readme, dir: "readme" },
    ...docs.filter((page) => page.name !== "first-app").map((page) => ({ ...page, dir: "docs" }))
  ]
    .flatMap(({ dir, name, text }) =>
      blocks(text, "ts").map(({ code, named }, i) => ({
        path: named?.startsWith("examples/") ? named : `examples/${dir}/${name}-${i}.ts`,
        code
      }))
    )

/** The first app's files, at the paths docs/first-app.md names for them, under first-app/. */
const firstAppFiles = (): ReadonlyArray<{ readonly path: string; readonly code: string }> =>
  [...blocks(firstApp, "json"), ...blocks(firstApp, "ts")].flatMap(({ code, named }) =>
    named === "tsconfig.json" || named?.startsWith("src/") ? [{ path: Path.join("first-app", named), code }] : []
  )

// The MCP clients of other projects whose use docs/serving.md shows, with the peers each requires.
const clientsTried = [
  "@ai-sdk/mcp",
  "zod",
  "@langchain/mcp-adapters",
  "@langchain/core",
  "@langchain/langgraph",
  "@mastra/mcp",
  "@mastra/core"
]

// A user's strict settings, as Node's type stripping wants them; the package's types are read as installed.
const tsconfig = {
  compilerOptions: {
    target: "es2023",
    lib: ["es2023"],
    module: "nodenext",
    moduleResolution: "nodenext",
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    allowImportingTsExtensions: true,
    erasableSyntaxOnly: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true
  },
  include: ["examples", "*.ts"]
}

beforeAll(() => {
  const tarball = Path.join(root, npm(["pack", "--pack-destination", root], repo).trim().split("\n").at(-1) ?? "")
  Fs.mkdirSync(app)
  Fs.writeFileSync(
    Path.join(app, "package.json"),
    // npm runs the `node` package's install script (it fetches the binary) only when allowed.
    JSON.stringify({ name: "an-app", private: true, allowScripts: { node: true } }, null, 2)
  )
  // The README's lines, the tarball for its placeholder path.
  for (const line of shellLines("## Install")) {
    const [command, ...args] = line.replace(/\S*effect-surface-[\w.]*\.tgz/, tarball).split(/\s+/)
    assert.strictEqual(command, "npm", line)
    npm(args, app)
  }
  // What this test uses in the app: its own Node 24, and TypeScript with Node's types to check the snippets.
  npm(
    ["install", "-D", ...["node", "typescript", "@types/node"].map((p) => `${p}@${manifest.devDependencies[p]}`)],
    app
  )
  // The clients docs/serving.md shows driving a server (its "Clients tried"), as a user of each installs them.
  npm(["install", "-D", ...clientsTried.map((p) => `${p}@${manifest.devDependencies[p]}`)], app)
  Fs.mkdirSync(Path.join(root, "oldest"))
  Fs.writeFileSync(Path.join(root, "oldest", "package.json"), JSON.stringify({ allowScripts: { node: true } }))
  npm(["install", `node@${oldest}`], Path.join(root, "oldest"))
  for (const { code, path } of snippets()) {
    Fs.mkdirSync(Path.dirname(Path.join(app, path)), { recursive: true })
    Fs.writeFileSync(Path.join(app, path), code)
  }
  Fs.writeFileSync(Path.join(app, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
  for (const { code, path } of firstAppFiles()) {
    Fs.mkdirSync(Path.dirname(Path.join(app, path)), { recursive: true })
    Fs.writeFileSync(Path.join(app, path), code)
  }
  Fs.writeFileSync(
    Path.join(app, "quickstart-run.ts"),
    [
      `import { Effect } from "effect"`,
      `import { program } from "./examples/quickstart.ts"`,
      `console.log(JSON.stringify({ answer: await Effect.runPromise(program), from: import.meta.resolve("effect-surface") }))`
    ].join("\n")
  )
}, 600_000)

afterAll(() => Fs.rmSync(root, { recursive: true, force: true }))

describe("the packed package in a new app", () => {
  it("the tarball holds the build, and the app is an ES module app with the package's peers beside it", () => {
    const installed = Path.join(app, "node_modules", "effect-surface")
    assert.isTrue(Fs.existsSync(Path.join(installed, "dist", "index.js")))
    assert.isTrue(Fs.existsSync(Path.join(installed, "dist", "index.d.ts")))
    const pkg = JSON.parse(Fs.readFileSync(Path.join(app, "package.json"), "utf8")) as Record<string, unknown>
    assert.strictEqual(pkg["type"], "module")
    for (const peer of ["effect", "@effect/platform-node", "@modelcontextprotocol/sdk"]) {
      assert.isTrue(Fs.existsSync(Path.join(app, "node_modules", peer, "package.json")), peer)
    }
  })

  it("every TypeScript snippet of the README and of docs/ type-checks against the installed types under strict settings", () => {
    const tsc = Path.join(app, "node_modules", "typescript", "bin", "tsc")
    const checked = run(appNode, [tsc, "-p", "tsconfig.json"], app)
    assert.strictEqual(checked.status, 0, checked.stdout + checked.stderr)
    assert.isAbove(snippets().length, 25)
  })

  it("docs/first-app.md installs what the app here holds: every package its install lines name", () => {
    const named = shellLines("## The project", firstApp).filter((line) => line.startsWith("npm install"))
      .flatMap((line) => line.split(/\s+/).slice(2)).filter((word) => !word.startsWith("-") && !word.endsWith(".tgz"))
    assert.includeMembers(named, ["effect", "typescript", "@types/node"])
    for (const name of named) assert.isTrue(Fs.existsSync(Path.join(app, "node_modules", name, "package.json")), name)
  })

  it("the first app of docs/first-app.md type-checks and builds with the tsconfig.json it shows, declarations included", () => {
    const files = firstAppFiles().map((file) => file.path).sort()
    assert.deepStrictEqual(files, [
      "first-app/src/main.ts",
      "first-app/src/notes.ts",
      "first-app/src/server.ts",
      "first-app/tsconfig.json"
    ])
    const shown = JSON.parse(Fs.readFileSync(Path.join(app, "first-app", "tsconfig.json"), "utf8")) as {
      readonly compilerOptions: Readonly<Record<string, unknown>>
    }
    assert.strictEqual(shown.compilerOptions["declaration"], true)
    const tsc = Path.join(app, "node_modules", "typescript", "bin", "tsc")
    const built = run(appNode, [tsc, "-p", "tsconfig.json"], Path.join(app, "first-app"))
    assert.strictEqual(built.status, 0, built.stdout + built.stderr)
    // The exported server layers are named in the declarations, through the package's own entries.
    const declared = Fs.readFileSync(Path.join(app, "first-app", "dist", "server.d.ts"), "utf8")
    assert.include(declared, `import("effect-surface").AnyResolveError`)
    assert.notInclude(declared, "node_modules")
  })

  for (const [label, node] of [["Node 24", appNode], [`Node ${oldest}`, oldestNode]] as const) {
    it(`the first app serves its notes over stdio under ${label}, as docs/first-app.md says`, async () => {
      const transport = new StdioClientTransport({
        command: node,
        args: ["src/main.ts"],
        cwd: Path.join(app, "first-app"),
        env: env() as Record<string, string>,
        stderr: "pipe"
      })
      const client = new Client({ name: "an-app's host", version: "1.0.0" })
      await client.connect(transport)
      try {
        assert.deepStrictEqual((await client.listTools()).tools.map((tool) => tool.name), ["notes_add"])
        assert.deepStrictEqual(
          (await client.listResources()).resources.map((resource) => resource.uri),
          ["surface://cells/latest", "surface://collections/notes"]
        )
        const added = await client.callTool({ name: "notes_add", arguments: { text: "hello" } })
        assert.deepStrictEqual(added.structuredContent, { id: "n1" })
      } finally {
        await client.close()
      }
    }, 60_000)

    it(`the quickstart runs under the app's ${label}, from the installed build`, () => {
      const ran = run(node, ["quickstart-run.ts"], app)
      assert.strictEqual(ran.status, 0, ran.stderr)
      const { answer, from } = JSON.parse(ran.stdout) as { readonly answer: number; readonly from: string }
      assert.strictEqual(answer, 2)
      assert.strictEqual(from, new URL(`file://${app}/node_modules/effect-surface/dist/index.js`).href)
    })

    for (const server of ["examples/serve/stdio.ts", "examples/serve/stdio-promise.ts"]) {
      it(`${server} from the README serves the SDK's client over stdio under ${label}`, async () => {
        const transport = new StdioClientTransport({
          command: node,
          args: [server],
          cwd: app,
          env: env() as Record<string, string>,
          stderr: "pipe"
        })
        const client = new Client({ name: "an-app's host", version: "1.0.0" })
        await client.connect(transport)
        try {
          assert.deepStrictEqual((await client.listTools()).tools.map((tool) => tool.name), ["counter_add"])
          const added = await client.callTool({ name: "counter_add", arguments: { value: 2 } })
          assert.deepStrictEqual(added.structuredContent, { value: 2 })
        } finally {
          await client.close()
        }
      }, 60_000)
    }

    it(`the installed bin answers --help under ${label}`, () => {
      const help = run(node, [Path.join(app, "node_modules", ".bin", "effect-surface"), "--help"], app)
      assert.strictEqual(help.status, 0, help.stderr)
      assert.include(help.stdout, "guard")
      assert.strictEqual(help.stderr, "", "nothing on stderr: no warning for a module --help does not use")
    })

    it(`the installed bin reads its version from the package's manifest under ${label}`, () => {
      const shown = run(node, [Path.join(app, "node_modules", ".bin", "effect-surface"), "--version"], app)
      assert.strictEqual(shown.status, 0, shown.stderr)
      assert.strictEqual(shown.stdout.trim(), `effect-surface v${manifest.version}`)
    })
  }

  it.runIf(olderNode !== undefined)(
    "the installed bin under an older Node says, in one sentence, which Node it needs",
    () => {
      const refused = run(olderNode ?? "", [Path.join(app, "node_modules", ".bin", "effect-surface"), "--help"], app)
      assert.strictEqual(refused.status, 1)
      assert.strictEqual(refused.stdout, "")
      assert.match(refused.stderr, /^effect-surface needs Node 22\.19 or later; this is v\d+\.\d+\.\d+\.\n$/)
    }
  )
})
