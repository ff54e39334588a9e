// The raw SDK server on this process's stdio, serving the shared echo workload (lib/workload.ts):
// the far end of the client toolset's stdio figures. Exits when stdin ends.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { makeRawServer } from "../lib/workload.ts"

await makeRawServer().connect(new StdioServerTransport())
process.stdin.once("end", () => process.exit(0))
