import { defineConfig } from "vitest/config"

// Tests import the package by its own name; this condition resolves it to the sources, not dist/.
const conditions = ["effect-surface-source"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
