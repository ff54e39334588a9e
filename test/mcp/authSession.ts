// A 2025 session behind the resource server is its opener's: the scenario both the single server and
// the two instances behind a round-robin proxy are put through. A session opened with one subject's
// token is answered to another subject's token — on POST, GET and DELETE, each asked twice so the
// proxy takes it to both instances — exactly as an unknown session is (404 "Session not found"),
// and nothing that other subject sends ends it; a fresh token of the same subject (a refresh) goes
// on using it, opens its GET stream and ends it.
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { legacyInitialize } from "./authServed.ts"

const accept = "application/json, text/event-stream"

export interface Reply {
  readonly status: number
  /** The JSON-RPC error's message, when the answer is one. */
  readonly error: string | undefined
  /** The answer's body; empty for a GET stream that was opened (it is cancelled once its headers came). */
  readonly text: string
}

/** One request naming `session`, with the Authorization header given. */
export const onSession = (
  url: string,
  authorization: string,
  session: string,
  method: "POST" | "GET" | "DELETE",
  body?: unknown
) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(url, {
      method,
      headers: {
        accept: method === "GET" ? "text/event-stream" : accept,
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": session,
        authorization,
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    if (method === "GET" && response.ok) {
      await response.body?.cancel()
      return { status: response.status, error: undefined, text: "" }
    }
    const text = await response.text()
    const error = text.startsWith("{")
      ? (JSON.parse(text) as { readonly error?: { readonly message?: string } }).error?.message
      : undefined
    return { status: response.status, error, text }
  })

/** How the scenario signs tokens for the endpoint, and the call it makes on the session. */
export interface Setup {
  readonly url: string
  /** A token for `claims` over the issuer's defaults. */
  readonly sign: (claims: Record<string, unknown>) => Promise<string>
  readonly audience: string
  readonly call: { readonly name: string; readonly arguments: Record<string, unknown> }
  /** What the call's answer holds when it was served. */
  readonly answered: string
}

const call = (setup: Setup, id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: setup.call })

/** Run the scenario against an endpoint; fails on the first answer that is not as it must be. */
export const bound = (setup: Setup) =>
  Effect.gen(function*() {
    const { audience, url } = setup
    const sign = (claims: Record<string, unknown>) => Effect.promise(() => setup.sign({ aud: audience, ...claims }))
    const ada = `Bearer ${yield* sign({ sub: "ada" })}`
    const bob = `Bearer ${yield* sign({ sub: "bob" })}`
    // A refresh: the same subject (and client), a different token.
    const adaAgain = `Bearer ${yield* sign({ sub: "ada", jti: "refreshed", exp: Math.floor(Date.now() / 1000) + 900 })}`
    assert.notStrictEqual(adaAgain, ada)
    const unknown = yield* onSession(url, bob, Crypto.randomUUID(), "POST", call(setup, 1))
    assert.strictEqual(unknown.status, 404)
    assert.match(unknown.error ?? "", /Session not found/)
    const opened = yield* legacyInitialize(url, ada)
    assert.strictEqual(opened.status, 200)
    const session = opened.session ?? ""
    assert.notStrictEqual(session, "")
    // Asked before the opener's next request, so an instance that did not open the session meets it
    // first in another subject's request (and must refuse it from what Redis says).
    for (let i = 0; i < 2; i++) {
      for (const [method, body] of [["POST", call(setup, 2)], ["GET", undefined], ["DELETE", undefined]] as const) {
        const refused = yield* onSession(url, bob, session, method, body)
        assert.strictEqual(refused.status, 404, `${method} with another subject's token: ${refused.text}`)
        assert.deepStrictEqual(
          JSON.parse(refused.text),
          JSON.parse(unknown.text),
          `${method}: told from an unknown session`
        )
      }
    }
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
    assert.strictEqual((yield* onSession(url, ada, session, "POST", initialized)).status, 202)
    for (let i = 0; i < 2; i++) {
      const served = yield* onSession(url, adaAgain, session, "POST", call(setup, 3 + i))
      assert.strictEqual(served.status, 200, served.text)
      assert.include(served.text, setup.answered)
    }
    assert.strictEqual((yield* onSession(url, adaAgain, session, "GET")).status, 200)
    assert.strictEqual((yield* onSession(url, adaAgain, session, "DELETE")).status, 200)
    for (let i = 0; i < 2; i++) {
      assert.strictEqual((yield* onSession(url, ada, session, "POST", call(setup, 5 + i))).status, 404)
    }
  })
