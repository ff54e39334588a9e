// Headless Chromium for the console's browser tests: the system's own browser (Debian's `chromium`,
// or CHROMIUM_PATH), driven by playwright-core, which downloads none. Each launch has a fresh profile.
import { Effect } from "effect"
import type { Scope } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"

const executablePath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

const args = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** A browser with a fresh profile (sending `headers` with every request), closed and removed with the scope. */
export const browser = (headers: Record<string, string> = {}): Effect.Effect<BrowserContext, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(async () => {
        const profile = Fs.mkdtempSync(Path.join(Os.tmpdir(), "console-chromium-"))
        const context = await chromium.launchPersistentContext(profile, {
          executablePath,
          args,
          headless: true,
          viewport: { width: 1280, height: 860 },
          extraHTTPHeaders: headers
        })
        return { context, profile }
      }),
      ({ context, profile }) =>
        Effect.promise(async () => {
          await context.close()
          Fs.rmSync(profile, { recursive: true, force: true })
        })
    ),
    ({ context }) => context
  )

/** A page of a fresh browser, open at `url`. */
export const open = (url: string, headers?: Record<string, string>): Effect.Effect<Page, never, Scope.Scope> =>
  Effect.flatMap(browser(headers), (context) =>
    Effect.promise(async () => {
      const page = await context.newPage()
      await page.goto(url)
      return page
    }))
