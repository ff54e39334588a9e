import { configDefaults, defineConfig } from "vitest/config"

// Tests import the package by its own name; this condition resolves it to the sources, not dist/.
const conditions = ["effect-surface-source"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    // The packed package in a new app: its own run (npm run test:install), since it reaches the registry.
    exclude: [...configDefaults.exclude, "test/install/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
