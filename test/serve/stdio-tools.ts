// serveTools over this process's stdio, as an MCP host would start it: the shop's quote wrapped in
// governance (its decisions written to stderr), and the plain echo. Started by ServeTools.test.ts.
import { serveTools } from "effect-surface/serve"
import { echo, governed, makeQuote } from "./shop.ts"

const { tool } = makeQuote()
const limited = governed(tool, { allows: (args) => args.qty <= 5, because: "at most 5 per order" }, (line) => {
  process.stderr.write(`governance: ${line}\n`)
})
const served = await serveTools([limited, echo], { serverInfo: { name: "shop", version: "1.0.0" } })
await served.closed
process.stderr.write("shop closed\n")
