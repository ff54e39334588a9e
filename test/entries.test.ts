import { assert, describe, it } from "@effect/vitest"
import { modulesLoadedBy as loadsOf } from "./moduleLoads.ts"

/** What importing `specifier` loads, the import having succeeded. */
const modulesLoadedBy = (specifier: string): ReadonlyArray<string> => {
  const loaded = loadsOf(specifier)
  assert.strictEqual(loaded.status, 0, loaded.stderr)
  return loaded.urls
}

// A host starts a stdio server per session and waits for what it loads: each entry point loads the
// faces it exports and no other. (How long that takes is measured in bench/, never asserted here.)
const source = (path: string) => new URL(`../src/${path}`, import.meta.url).href

/** The Streamable HTTP stack: our HTTP modules, Node's HTTP server, effect's and the SDK's. */
const httpStack = (urls: ReadonlyArray<string>) =>
  urls.filter((url) =>
    /\/src\/mcp\/(legacy\/)?(Http|EventStore)|\/src\/mcp\/((legacy|modern)\/)?internal\/http/.test(url) ||
    url === "node:http" ||
    /\/effect\/dist\/http\/HttpServer\.js$|\/@effect\/platform-node\/dist\/NodeHttpServer\.js$/.test(url) ||
    /\/@modelcontextprotocol\/sdk\/dist\/esm\/server\/(streamableHttp|webStandardStreamableHttp)\.js$/.test(url)
  )

/** The wire face: `effect/rpc`, `effect/socket` and the `ws` sockets it stands on. */
const wireStack = (urls: ReadonlyArray<string>) =>
  urls.filter((url) =>
    /\/src\/(wire\/Wire|surface\/WireProtocol)\.ts$|\/effect\/dist\/(rpc|socket)\/|\/node_modules\/ws\//.test(url)
  )

describe("entry points", () => {
  it("the stdio entry loads the MCP face and its own stdio transport, and nothing of the Streamable HTTP stack", () => {
    const urls = modulesLoadedBy(source("mcp/stdio.ts"))
    assert.isTrue(urls.some((url) => url.endsWith("/src/mcp/McpServer.ts")))
    assert.isTrue(urls.some((url) => url.endsWith("/src/mcp/transport/stdioLines.ts")))
    assert.isFalse(urls.some((url) => url.endsWith("/@modelcontextprotocol/sdk/dist/esm/server/stdio.js")))
    assert.deepStrictEqual(httpStack(urls), [])
    assert.deepStrictEqual(wireStack(urls), [])
  })

  it("the full MCP barrel does load the Streamable HTTP stack, so the check above can see it", () => {
    assert.isNotEmpty(httpStack(modulesLoadedBy(source("mcp/index.ts"))))
  })

  it("the root barrel loads the contract and the core, and nothing of the wire face, which has its own entry", () => {
    const urls = modulesLoadedBy(source("index.ts"))
    assert.isTrue(urls.some((url) => url.endsWith("/src/core/Engine.ts")))
    assert.deepStrictEqual(wireStack(urls), [])
    assert.deepStrictEqual(httpStack(urls), [])
    assert.isNotEmpty(wireStack(modulesLoadedBy(source("wire/index.ts"))))
  })
})
