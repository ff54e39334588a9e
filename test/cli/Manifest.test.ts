// Installing the package's tarball runs none of its scripts, so npm (11 and later) has no install
// script to warn about or ask the user to approve: the build runs when the tarball is packed
// (`prepack`, under `npm pack` and `npm publish`), never on the user's machine.
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"

const manifest = JSON.parse(Fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  readonly scripts: Readonly<Record<string, string>>
  readonly files: ReadonlyArray<string>
}

// What npm runs when a package is installed, as a dependency or from a tarball.
const installScripts = ["preinstall", "install", "postinstall", "prepare"]

describe("the package's manifest", () => {
  it("declares no script npm runs on install; the build runs when the tarball is packed", () => {
    assert.deepStrictEqual(installScripts.filter((name) => Object.hasOwn(manifest.scripts, name)), [])
    assert.strictEqual(manifest.scripts["prepack"], "npm run build")
    assert.include(manifest.files, "dist")
  })
})
