// A preload (`node --import ./bench/lib/traceImports.ts …`) that records every module the process
// loads, and at exit writes them, in load order, as JSON lines to the file named by
// TRACE_IMPORTS_OUT: `{ url, at }`, `at` being milliseconds since the process started. It answers
// "what does this entry point load", the question import timing alone cannot.
import * as fs from "node:fs"
import { registerHooks } from "node:module"

const out = process.env["TRACE_IMPORTS_OUT"]
const loaded: Array<{ readonly url: string; readonly at: number }> = []

if (out !== undefined && out !== "") {
  registerHooks({
    load: (url, context, nextLoad) => {
      loaded.push({ url, at: performance.now() })
      return nextLoad(url, context)
    }
  })
  process.once("exit", () => {
    fs.writeFileSync(out, loaded.map((entry) => JSON.stringify(entry)).join("\n") + "\n")
  })
}
