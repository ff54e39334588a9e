// The example board served over HTTP behind the resource server, for the authorization tests: the
// JWT verifier against a given issuer, a `whoami` tool that answers the caller its handler sees and
// counts its runs, every log line the server writes kept, and raw requests of both eras that carry an
// Authorization header of the test's choosing.
import { Effect, Layer, Logger, References } from "effect"
import { Identity, Tools } from "effect-surface"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { initialize } from "./httpRaw.ts"
import { envelope } from "./modern.ts"

export interface Served {
  readonly url: string
  readonly runs: { count: number }
  readonly logs: Array<string>
}

export const whoami = (runs: { count: number }) =>
  Tools.make({
    description: "Answer who the caller is, as the handler sees it.",
    mutates: false,
    handler: () =>
      Effect.map(Identity.current, (me) => {
        runs.count++
        return `${me.subject} via ${me.clientId} with ${me.scopes.join(" ")}`
      })
  })

/** The board behind a resource server whose tokens `verifier` checks. */
export const serveBehind = (verifier: Layer.Layer<McpTokenVerifier.TokenVerifier>, auth: McpAuth.Options = {}) =>
  Effect.gen(function*() {
    const runs = { count: 0 }
    const logs: Array<string> = []
    const keep = Logger.make((options) => {
      logs.push(`${String(options.message)} ${JSON.stringify(options.fiber.getRef(References.CurrentLogAnnotations))}`)
    })
    const options = yield* serverOptions
    const served = yield* McpHttp.serve({
      ...options,
      tools: { ...options.tools, whoami: whoami(runs) },
      scopes: { ...options.scopes, tools: { ...options.scopes?.tools, whoami: "board:read" } },
      http: { port: 0 }
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          McpAuth.layer({ scopesSupported: ["board:read", "board:write"], ...auth }).pipe(Layer.provide(verifier)),
          Logger.layer([keep], { mergeWithExisting: false })
        )
      )
    )
    return { url: served.url, runs, logs } satisfies Served
  })

const accept = "application/json, text/event-stream"

/** Messages of a response body, JSON or SSE. */
const messagesOf = async (response: Response): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const text = await response.text()
  if (text === "") return []
  return (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)))
    : [JSON.parse(text)]
}

export interface Answered {
  readonly status: number
  readonly challenge: string | null
  readonly session: string | null
  readonly messages: ReadonlyArray<Record<string, unknown>>
}

const send = (url: string, headers: Record<string, string>, body: unknown) =>
  Effect.promise(async (): Promise<Answered> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept, ...headers },
      body: JSON.stringify(body)
    })
    return {
      status: response.status,
      challenge: response.headers.get("www-authenticate"),
      session: response.headers.get("mcp-session-id"),
      messages: await messagesOf(response)
    }
  })

const authorized = (authorization: string | undefined): Record<string, string> =>
  authorization === undefined ? {} : { authorization }

/** A 2025 `initialize` with the header given. */
export const legacyInitialize = (url: string, authorization: string | undefined) =>
  send(url, { "mcp-protocol-version": "2025-11-25", ...authorized(authorization) }, initialize)

/** A 2025 session opened with the header given, then one request on it. */
export const legacyRequest = (
  url: string,
  authorization: string | undefined,
  method: string,
  params: Record<string, unknown> = {}
) =>
  Effect.gen(function*() {
    const opened = yield* legacyInitialize(url, authorization)
    const session = opened.session ?? ""
    const headers = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session, ...authorized(authorization) }
    yield* send(url, headers, { jsonrpc: "2.0", method: "notifications/initialized" })
    return yield* send(url, headers, { jsonrpc: "2.0", id: 2, method, params })
  })

/** One 2026 request with the header given. */
export const modernRequest = (
  url: string,
  authorization: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {}
) => {
  const name = [params["name"], params["uri"], params["taskId"]].find((value) => typeof value === "string")
  return send(url, {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...authorized(authorization)
  }, { jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: envelope(capabilities) } })
}

/** The result (or error) of the answer to a request. */
export const resultOf = (answered: Answered) =>
  answered.messages.find((message) => message["id"] !== undefined) as
    | {
      readonly result?: Record<string, unknown>
      readonly error?: { readonly code: number; readonly message: string }
    }
    | undefined
