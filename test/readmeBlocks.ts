// The README's code blocks, for tests that hold each one to the example file a test runs.
import { readFileSync } from "node:fs"

export const readme = (): string => readFileSync(new URL("../README.md", import.meta.url), "utf8")

/** The ```ts block that follows `marker` in the README. */
export const blockAfter = (text: string, marker: string) =>
  new RegExp(`${marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1]
