// The code blocks of the README and of the pages under docs/, for tests that hold each one to the
// example file a test runs.
import { readdirSync, readFileSync } from "node:fs"

const root = new URL("../", import.meta.url)

export const readme = (): string => readFileSync(new URL("README.md", root), "utf8")

/** The page `docs/<name>.md`. */
export const page = (name: string): string => readFileSync(new URL(`docs/${name}.md`, root), "utf8")

/** The names of the pages under docs/, without `.md`. */
export const pages = (): ReadonlyArray<string> =>
  readdirSync(new URL("docs/", root)).filter((file) => file.endsWith(".md")).map((file) => file.slice(0, -3)).sort()

/** The ```ts block that follows `marker` (the line before it, then a blank line). */
export const blockAfter = (text: string, marker: string) =>
  new RegExp(`${marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1]
