// A 2025 session behind the resource server belongs to the subject whose token opened it: another
// subject's token naming it is answered as an unknown session (POST, GET and DELETE alike) and ends
// nothing, while a fresh token of the same subject goes on using it (a token refresh keeps the session).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpTokenVerifier } from "effect-surface/mcp"
import * as AuthIssuer from "./authIssuer.ts"
import { serveBehind } from "./authServed.ts"
import { bound } from "./authSession.ts"

describe("a 2025 session behind the resource server", () => {
  it.live("is served to the subject that opened it, with any of its tokens, and to no other subject", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(McpTokenVerifier.layerJwt({ issuer: issuer.issuer }))
      yield* bound({
        url: served.url,
        audience: served.url,
        sign: issuer.sign,
        call: { name: "whoami", arguments: {} },
        answered: "ada via board-cli"
      })
      // Only the opener's calls ran.
      assert.strictEqual(served.runs.count, 2)
    }))
})
