// The client face stands on the core, and of the MCP server face it reads only the 2026 wire shapes
// (`McpMessages`, `McpResults`: one definition for both ends); the SDK's code is imported only by the
// two transport modules, so a protocol revision moves there alone (others name its `Transport` type).
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const dir = fileURLToPath(new URL("../../src/client", import.meta.url))
const sources = Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
const importsOf = (file: string) =>
  Array.from(
    Fs.readFileSync(Path.join(dir, file), "utf8").matchAll(/^\s*(?:import|export)\s[^"']*["']([^"']+)["']/gm),
    (m) => m[1] ?? ""
  )

describe("src/client layering", () => {
  it("imports nothing from src/mcp but the 2026 wire shapes", () => {
    assert.isAbove(sources.length, 10)
    const offending = sources.flatMap((file) =>
      importsOf(file).filter((spec) =>
        /(^|\/)mcp(\/|$)/.test(spec) && spec.startsWith(".") && !/\/mcp\/modern\/(Wire|Results)\.ts$/.test(spec)
      ).map((spec) => `${file}: ${spec}`)
    )
    assert.deepStrictEqual(offending, [])
  })

  it("imports the MCP SDK's code only in its transport modules", () => {
    const valueImports = (file: string) =>
      Array.from(
        Fs.readFileSync(Path.join(dir, file), "utf8").matchAll(/^\s*import\s+(?!type\s)[^"']*["']([^"']+)["']/gm),
        (m) => m[1] ?? ""
      )
    const sdk = sources.filter((file) =>
      valueImports(file).some((spec) => spec.startsWith("@modelcontextprotocol/sdk"))
    )
    assert.sameMembers(sdk, ["Transports.ts", Path.join("internal", "remote.ts")])
  })
})
