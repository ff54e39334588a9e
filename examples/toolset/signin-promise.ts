import { createSqliteMcpTokenStore, mcpTools } from "effect-surface/client"
import { createServer } from "node:http"

declare const openInBrowser: (url: URL) => void

// authorize: open the browser, and resolve to the URL it is sent back to (this loopback port).
const authorize = (authorizationUrl: URL) =>
  new Promise<URL>((resolve) => {
    const server = createServer((req, res) => {
      res.end("Signed in; you can close this tab.")
      server.close()
      resolve(new URL(req.url ?? "/", "http://127.0.0.1:8765"))
    }).listen(8765, "127.0.0.1", () => openInBrowser(authorizationUrl))
  })

export const connect = () =>
  mcpTools([{
    name: "docs",
    type: "streamable-http",
    url: "https://mcp.example.com/mcp",
    oauth: {
      clientName: "My agent",
      redirectUrl: "http://127.0.0.1:8765/callback",
      clientId: "registered-with-the-authorization-server" // optional: skips registration
    }
  }], { authorize, tokenStore: createSqliteMcpTokenStore("tokens.db") })
