import { defineConfig } from "vitest/config"
import base from "./vitest.config.ts"

// `npm run test:stress`: the reliability tests at full size (the tests read STRESS to choose their
// sizes), one file at a time so the load and fault tests have the machine to themselves, with
// `--expose-gc` so heap measurements use the real `gc()`. Only the reliability tests: `include` is
// replaced, not merged with the base config's.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/reliability/**/*.test.ts"],
    env: { STRESS: "1" },
    execArgv: ["--expose-gc"],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000
  }
})
