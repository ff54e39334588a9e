// A preload for a test's child process (`node --import ./test/mcp/loadedModules.ts …`): it notes every
// module the process loads and, as the process exits, writes their URLs, one a line, to the file
// named by LOADED_MODULES_OUT. It lets a test say what a server start did not load.
import * as fs from "node:fs"
import { registerHooks } from "node:module"

const out = process.env["LOADED_MODULES_OUT"]
const loaded: Array<string> = []

if (out !== undefined && out !== "") {
  registerHooks({
    load: (url, context, nextLoad) => {
      loaded.push(url)
      return nextLoad(url, context)
    }
  })
  process.once("exit", () => {
    fs.writeFileSync(out, loaded.join("\n") + "\n")
  })
}
