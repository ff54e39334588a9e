// A host page, as a chat host renders MCP Apps: an official SDK client over HTTP declaring the
// extension, the view of a tool read from the server, rendered in a sandboxed iframe and bridged to
// the server by ext-apps' AppBridge. Bundled for the browser by the test; `?mode=` picks the revision.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"

const MIME = "text/html;profile=mcp-app"

// The few DOM names this page uses, typed here: the project compiles without the DOM library.
interface Element {
  setAttribute(name: string, value: string): void
  append(...nodes: ReadonlyArray<Element | string>): void
  style: { cssText: string }
  dataset: { [key: string]: string | undefined }
  srcdoc: string
  contentWindow: Window | null
}
type Window = ConstructorParameters<typeof PostMessageTransport>[0]
const { document, location } = globalThis as unknown as {
  readonly document: { createElement(tag: string): Element; readonly body: Element }
  readonly location: { readonly search: string; readonly href: string }
}

const start = async () => {
  const params = new URLSearchParams(location.search)
  const pinned = params.get("mode") === "2026"
  const client = new Client({ name: "view-host", version: "1.0.0" }, {
    versionNegotiation: pinned ? { mode: { pin: "2026-07-28" } } : { mode: "legacy" },
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)))
  const { tools } = await client.listTools()
  const tool = tools.find((t) => t.name === (params.get("tool") ?? "tasks_add"))
  const uri = (tool?._meta?.["ui"] as { resourceUri?: string } | undefined)?.resourceUri
  if (uri === undefined) throw new Error("the tool links to no view")
  const { contents } = await client.readResource({ uri })
  const view = contents[0] as { text: string; mimeType: string; _meta?: unknown }
  if (view.mimeType !== MIME) throw new Error(`the view is ${view.mimeType}`)
  const iframe = document.createElement("iframe")
  iframe.setAttribute("sandbox", "allow-scripts allow-forms")
  iframe.style.cssText = "width: 100%; height: 640px; border: 1px solid #ccc"
  document.body.append(iframe)
  const bridge = new AppBridge(client, { name: "view-host", version: "1.0.0" }, {
    serverTools: {},
    serverResources: {}
  })
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()))
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!))
  iframe.srcdoc = view.text
  await initialized
  document.body.dataset["state"] = "ready"
}

start().catch((error: unknown) => {
  document.body.dataset["state"] = "failed"
  document.body.append(String(error instanceof Error ? error.stack : error))
})
