// A guard served over HTTP behind the resource server: a grant's scope narrows who is shown its tool,
// a call outside the token's scopes is refused 403 before the guard's path, and every audit row
// names the caller's subject and client (the command line's, the local caller).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Identity } from "effect-surface"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import { Audit, Guard, GuardFile, GuardServe } from "effect-surface/guard"
import * as Fs from "node:fs"
import { legacyRequest, modernRequest, resultOf } from "../mcp/authServed.ts"
import { fixture } from "./guardFixture.ts"

const tokens = {
  "echo-only": Identity.token({ subject: "ada", clientId: "cli-1", scopes: ["tools:echo"] }),
  "echo-and-sum": Identity.token({ subject: "bo", clientId: "cli-2", scopes: ["tools:echo", "tools:sum"] })
}

const names = (answered: { readonly messages: ReadonlyArray<Record<string, unknown>> }) =>
  ((resultOf(answered as never)?.result?.["tools"] ?? []) as ReadonlyArray<{ readonly name: string }>).map((t) =>
    t.name
  ).sort()

describe("a guard behind the resource server", () => {
  it.live(
    "a grant's scope narrows its tool to tokens holding it, and each audit row names the caller",
    () =>
      Effect.gen(function*() {
        const f = yield* fixture()
        const file = JSON.parse(Fs.readFileSync(f.guardFile, "utf8"))
        file.grants = {
          echo: { scope: "tools:echo" },
          "get-sum": { restrict: { a: { maximum: 10 } }, scope: "tools:sum" }
        }
        Fs.writeFileSync(f.guardFile, JSON.stringify(file))
        yield* Effect.flatMap(GuardFile.read(f.guardFile), (read) => Guard.lock(read))
        const context = yield* Layer.build(
          GuardServe.layerHttp({ port: 0 }).pipe(
            Layer.provideMerge(Guard.layerFile(f.guardFile)),
            Layer.provide(
              McpAuth.layer().pipe(Layer.provide(McpTokenVerifier.layerTest({ issuer: "https://auth.test", tokens })))
            )
          )
        )
        const { url } = yield* Effect.provideContext(Effect.service(McpHttp.Endpoint), context)
        assert.deepStrictEqual(names(yield* modernRequest(url, "Bearer echo-only", "tools/list")), ["echo"])
        assert.deepStrictEqual(names(yield* legacyRequest(url, "Bearer echo-and-sum", "tools/list")), [
          "echo",
          "get-sum"
        ])
        const echoed = yield* modernRequest(url, "Bearer echo-only", "tools/call", {
          name: "echo",
          arguments: { message: "hi" }
        })
        assert.strictEqual(echoed.status, 200)
        const refused = yield* modernRequest(url, "Bearer echo-only", "tools/call", {
          name: "get-sum",
          arguments: { a: 1, b: 2 }
        })
        assert.strictEqual(refused.status, 403)
        assert.include(refused.challenge ?? "", `scope="tools:echo tools:sum"`)
        const summed = yield* legacyRequest(url, "Bearer echo-and-sum", "tools/call", {
          name: "get-sum",
          arguments: { a: 1, b: 2 }
        })
        assert.strictEqual(summed.status, 200)
        const guard = yield* Effect.provideContext(Effect.service(Guard.Guard), context)
        yield* guard.execute("cli", "echo", { message: "from the shell" })
        const rows = yield* Audit.read(f.audit)
        assert.deepStrictEqual(rows.map((row) => [row.door, row.tool, row.outcome, row.subject, row.client]), [
          ["mcp", "echo", "started", "ada", "cli-1"],
          ["mcp", "echo", "ok", "ada", "cli-1"],
          ["mcp", "get-sum", "started", "bo", "cli-2"],
          ["mcp", "get-sum", "ok", "bo", "cli-2"],
          ["cli", "echo", "started", "local", "local"],
          ["cli", "echo", "ok", "local", "local"]
        ])
      }).pipe(Effect.scoped),
    90_000
  )
})
