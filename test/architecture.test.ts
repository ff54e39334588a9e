// Layers point down: the contract (`src/surface`) ← the core (`src/core`, and `src/tools.ts`, the
// tool vocabulary's door) ← the faces. Read off every import of every source file, so an upward
// edge or a cycle fails here the moment it is written, not when a face first needs the core alone.
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const src = Path.join(root, "src")

const sourcesUnder = (dir: string): ReadonlyArray<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(dir, entry.name)
    return entry.isDirectory() ? sourcesUnder(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** Every module a source names: static imports and re-exports (type-only ones too), and dynamic imports. */
const specifiersOf = (source: string): ReadonlyArray<string> => {
  // Comments hold example code whose imports are the reader's, not the module's.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")
  return [
    ...Array.from(code.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gm), (m) => m[1] ?? ""),
    ...Array.from(code.matchAll(/^\s*import\s+"([^"]+)"/gm), (m) => m[1] ?? ""),
    ...Array.from(code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g), (m) => m[1] ?? "")
  ]
}

const relative = (file: string) => Path.relative(root, file).split(Path.sep).join("/")

interface Module {
  readonly file: string
  readonly local: ReadonlyArray<string>
  readonly packages: ReadonlyArray<string>
}

const modules: ReadonlyArray<Module> = sourcesUnder(src).map((path) => {
  const specifiers = specifiersOf(Fs.readFileSync(path, "utf8"))
  return {
    file: relative(path),
    local: specifiers.filter((s) => s.startsWith(".")).map((s) => relative(Path.resolve(Path.dirname(path), s))),
    packages: specifiers.filter((s) => !s.startsWith(".") && !s.startsWith("node:"))
  }
})

type Layer = "surface" | "core" | "face" | "barrel"

const layerOf = (file: string): Layer => {
  if (file.startsWith("src/surface/")) return "surface"
  if (file.startsWith("src/core/") || file === "src/tools.ts") return "core"
  if (file === "src/index.ts") return "barrel"
  return "face"
}

const rank: Record<Layer, number> = { surface: 0, core: 1, face: 2, barrel: 3 }

// Faces stand side by side on the core, and meet only where the design has them meet, each standing
// on the public modules (never `internal/`) of the faces named here: an ACP session's tools are a
// client toolset built from its editor's `mcpServers`; serveTools and Guard are served by the MCP face
// over the client toolset; the command line runs them; the client's 2026 request path decodes with
// the MCP face's wire shapes (`McpWire`, `McpResults`), one definition for both ends.
const composes: Readonly<Record<string, ReadonlyArray<string>>> = {
  client: ["mcp"],
  acp: ["client"],
  serve: ["mcp", "client"],
  cli: ["serve", "client"]
}

/** A face's folder under `src/`: `src/acp/AcpAgent.ts` → `acp`. */
const faceOf = (file: string): string => file.split("/")[1] ?? ""

const reachesAcross = (from: string, to: string): boolean =>
  faceOf(to) !== faceOf(from) &&
  !((composes[faceOf(from)] ?? []).includes(faceOf(to)) && !to.split("/").includes("internal"))
const protocolSdk = /^@(modelcontextprotocol|agentclientprotocol)\//

describe("architecture", () => {
  it("the scan sees the whole source tree", () => {
    assert.isAbove(modules.length, 50)
    assert.isTrue(modules.some((m) => m.file === "src/core/Engine.ts" && m.local.includes("src/core/Roster.ts")))
  })

  it("no module imports a layer above its own, nor one face another's beyond the meetings the design names", () => {
    const upward = modules.flatMap((m) =>
      m.local.flatMap((target) => {
        const from = layerOf(m.file)
        const to = layerOf(target)
        if (rank[to] > rank[from]) return [`${m.file} → ${target}`]
        // Faces stand side by side on the core; one reaches another's folder only as a declared composition.
        if (from === "face" && to === "face" && reachesAcross(m.file, target)) return [`${m.file} → ${target}`]
        return []
      })
    )
    assert.deepStrictEqual(upward, [])
  })

  it("a face reaches another only as a declared composition, and never into its internals", () => {
    assert.isFalse(reachesAcross("src/serve/ServeTools.ts", "src/mcp/McpServer.ts"))
    assert.isTrue(reachesAcross("src/serve/ServeTools.ts", "src/mcp/internal/httpPromise.ts"))
    assert.isTrue(reachesAcross("src/mcp/Face.ts", "src/serve/ServeTools.ts"))
    assert.isTrue(reachesAcross("src/client/McpToolset.ts", "src/mcp/modern/internal/requests.ts"))
    assert.isFalse(reachesAcross("src/acp/AcpToolset.ts", "src/client/McpToolset.ts"))
    assert.isTrue(reachesAcross("src/client/McpToolset.ts", "src/acp/AcpToolset.ts"))
  })

  it("the faces that meet do so one way: the declared compositions form no cycle", () => {
    const next = (face: string) => composes[face] ?? []
    const edges = Object.values(composes).flat().length
    // Bounded: a walk longer than the number of edges has gone round.
    const reaches = (from: string, to: string, steps: number): boolean =>
      steps > 0 && next(from).some((face) => face === to || reaches(face, to, steps - 1))
    assert.deepStrictEqual(Object.keys(composes).filter((face) => reaches(face, face, edges)), [])
  })

  it("neither the contract nor the core loads a protocol SDK", () => {
    const loaded = modules.flatMap((m) =>
      layerOf(m.file) === "face" || layerOf(m.file) === "barrel" ? [] : m.packages.filter((p) =>
        protocolSdk.test(p)
      ).map((p) => `${m.file} → ${p}`)
    )
    assert.deepStrictEqual(loaded, [])
  })

  it("no two modules import each other, directly or through others", () => {
    const edges = new Map(modules.map((m) => [m.file, m.local]))
    const cycles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const visit = (file: string, path: ReadonlyArray<string>) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" → "))
        return
      }
      state.set(file, "open")
      for (const next of edges.get(file) ?? []) visit(next, [...path, file])
      state.set(file, "done")
    }
    for (const m of modules) visit(m.file, [])
    assert.deepStrictEqual(cycles, [])
  })
})

// The MCP face, floor by floor: each module stands on those below it (or beside it, on its own
// floor) and never on one above; and neither revision's machinery reaches into the other's, so a
// reader finds the 2026 request path (`modern/`) without reading the 2025 sessions (`legacy/`).
const mcpFloors: ReadonlyArray<ReadonlyArray<string>> = [
  // The vocabulary: errors, log levels, completion, wire shapes, HTTP refusals, Redis plumbing.
  [
    "RpcError",
    "Logging",
    "Completion",
    "HttpGuard",
    "internal/stdioLines",
    "internal/channel",
    "internal/redisCall",
    "internal/httpDrain",
    "modern/Wire",
    "modern/Results",
    "modern/RequestState",
    "legacy/EventStore",
    "legacy/HttpResponse",
    "internal/authDiscovery",
    "internal/verifiedTokens",
    "internal/tokenClaims",
    "internal/keySet",
    "internal/sharedChecks",
    "internal/introspection",
    "TokenVerifier",
    "Auth",
    "internal/peer",
    "internal/consoleState",
    "internal/consolePage",
    "internal/consoleHttp",
    "internal/consoleBus",
    "internal/consoleHolds"
  ],
  // What the face serves beside the bundle, and what it tells every client unprompted.
  ["AppResources", "Prompts", "internal/broadcast", "modern/Caching", "modern/Tasks"],
  // The face both revisions serve, and what each caller of it is shown.
  ["Scopes", "Face"],
  // The operator's console over the face.
  ["internal/consoleRoster", "internal/consoleCalls", "Console"],
  // Each revision's machinery, over the face.
  [
    "modern/internal/answers",
    "modern/internal/headers",
    "modern/internal/asking",
    "modern/internal/holders",
    "modern/internal/calls",
    "modern/internal/sharedTasks",
    "modern/internal/tasks",
    "modern/internal/replies",
    "modern/internal/roundTrip",
    "modern/internal/requests",
    "modern/internal/listen",
    "modern/internal/cluster",
    "modern/internal/taskStore",
    "modern/internal/transport",
    "modern/internal/http",
    "legacy/EventStoreRedis",
    "legacy/internal/requestPath",
    "legacy/internal/sessionFollow",
    "legacy/internal/web",
    "legacy/internal/httpDirect",
    "legacy/internal/redisSessions",
    "legacy/internal/redisBus",
    "legacy/internal/replicaTransport",
    "legacy/internal/replicaTail",
    "legacy/internal/sessionRequests",
    "legacy/internal/sessionLives",
    "legacy/internal/sessionRoom",
    "legacy/Session",
    "legacy/internal/shared"
  ],
  // A connection in either revision; the 2025 session table and its Redis layer.
  ["Connection", "legacy/HttpSessions", "legacy/internal/http", "HttpRedis"],
  // The endpoint that tells the revisions apart, and the doors.
  ["internal/httpRequest", "internal/stdioConnection", "McpServer", "Http"],
  ["internal/promiseRuntime", "internal/httpPromise", "Promise"],
  ["stdio", "index"]
]

const mcpFloorOf = (file: string): number => {
  const name = file.replace(/^src\/mcp\//, "").replace(/\.ts$/, "")
  return mcpFloors.findIndex((floor) => floor.includes(name))
}

describe("the MCP face's layout", () => {
  const mcp = modules.filter((m) => m.file.startsWith("src/mcp/"))

  it("every module of the MCP face has its floor", () => {
    assert.deepStrictEqual(mcp.filter((m) => mcpFloorOf(m.file) < 0).map((m) => m.file), [])
  })

  it("every import in the MCP face points to its own floor or one below", () => {
    const upward = mcp.flatMap((m) =>
      m.local.filter((target) => target.startsWith("src/mcp/") && mcpFloorOf(target) > mcpFloorOf(m.file)).map(
        (target) => `${m.file} → ${target}`
      )
    )
    assert.deepStrictEqual(upward, [])
  })

  it("neither revision's machinery imports the other's", () => {
    const crossing = mcp.flatMap((m) =>
      m.local.filter((target) =>
        (m.file.startsWith("src/mcp/modern/") && target.startsWith("src/mcp/legacy/")) ||
        (m.file.startsWith("src/mcp/legacy/") && target.startsWith("src/mcp/modern/"))
      ).map((target) => `${m.file} → ${target}`)
    )
    assert.deepStrictEqual(crossing, [])
  })
})
