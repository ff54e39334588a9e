// Preloaded by the npm scripts that start the example (`node --import ./examples/compileCache.ts …`):
// Node's module compile cache, on before any of the example's modules load. A host starts the stdio
// command for every session; with the cache, every start after the first reads its modules compiled
// (and, from the sources, with their types already stripped) from Node's default cache directory,
// or the one NODE_COMPILE_CACHE names. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import * as Module from "node:module"

Module.enableCompileCache?.()
