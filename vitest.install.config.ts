import { defineConfig } from "vitest/config"
import base from "./vitest.config.ts"

// `npm run test:install`: the package packed, installed into a new app outside the repository and
// run there (test/install/). Only those tests: `include` and `exclude` are replaced, not merged.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/install/**/*.test.ts"],
    exclude: [],
    testTimeout: 120_000,
    hookTimeout: 900_000
  }
})
