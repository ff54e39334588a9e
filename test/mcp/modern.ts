// The official SDK v2 client, as the tests of MCP 2026-07-28 drive the faces with it: connected in
// the era asked for (the v2 default is 2025, `auto` probes and lands on 2026), answering questions
// with the handlers given, and closed with the scope. Raw 2026 requests for what a client would
// never send (a tampered state).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import type { Transport } from "@modelcontextprotocol/client"
import { Deferred, Effect, Ref, Schema } from "effect"
import { Ask, Tools } from "effect-surface"

export type Mode = "legacy" | "auto" | "pin"

export interface Answers {
  readonly elicit?: (params: { readonly message: string }) => Record<string, unknown>
  readonly sample?: (params: unknown) => string
  readonly roots?: ReadonlyArray<{ readonly uri: string; readonly name?: string }>
}

const negotiation = (mode: Mode) =>
  mode === "legacy"
    ? { mode: "legacy" as const }
    : mode === "auto"
    ? { mode: "auto" as const, probe: { timeoutMs: 10_000 } }
    : { mode: { pin: "2026-07-28" as const } }

/** A v2 client on `transport` for the scope's life. */
export const connect = (transport: Transport, mode: Mode, answers: Answers = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "tests", version: "1.0.0" }, {
        versionNegotiation: negotiation(mode),
        capabilities: {
          ...(answers.elicit === undefined ? {} : { elicitation: { form: {} } }),
          ...(answers.sample === undefined ? {} : { sampling: {} }),
          ...(answers.roots === undefined ? {} : { roots: {} })
        }
      })
      const { elicit, roots, sample } = answers
      if (elicit !== undefined) {
        client.setRequestHandler("elicitation/create", async (request) => ({
          action: "accept",
          content: elicit(request.params as { readonly message: string }) as never
        }))
      }
      if (sample !== undefined) {
        client.setRequestHandler("sampling/createMessage", async (request) => ({
          role: "assistant",
          model: "test-model",
          content: { type: "text", text: sample(request.params) }
        }))
      }
      if (roots !== undefined) client.setRequestHandler("roots/list", async () => ({ roots: [...roots] }))
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** A v2 client over Streamable HTTP; `fetch` (when given) carries its requests. */
export const overHttp = (url: string, mode: Mode, answers: Answers = {}, fetchWith?: typeof fetch) =>
  connect(
    new StreamableHTTPClientTransport(new URL(url), fetchWith === undefined ? {} : { fetch: fetchWith }),
    mode,
    answers
  )

/** A result's blocks, without the `_meta` a 2026 answer carries (who answered). */
export const contentOf = (result: unknown) => (result as { readonly content: unknown }).content

export const envelope = (capabilities: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": capabilities
})

/** One raw 2026 request with its standard headers (and any `headers` more): the HTTP status and the JSON-RPC message it answered with. */
export const raw = (
  url: string,
  id: number,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
  headers: Record<string, string> = {}
) =>
  Effect.promise(async () => {
    // The standard Mcp-Name: a call's or a prompt's name, a read's URI, a task's id.
    const name = [params["name"], params["uri"], params["taskId"]].find((value) => typeof value === "string")
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
        ...headers
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(capabilities) } })
    })
    const text = await response.text()
    const type = response.headers.get("content-type") ?? ""
    const messages = type.startsWith("text/event-stream")
      ? text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)))
      : [JSON.parse(text)]
    const answer = messages.find((message) => message.id === id) as {
      readonly result?: Record<string, unknown>
      readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
    }
    return { status: response.status, answer, messages }
  })

/** A tool that asks the person their name and greets it: `hello Ada`, or `hello (Decline)`. */
export const greet = Tools.make({
  description: "Asks a name and greets it.",
  mutates: false,
  handler: () =>
    Effect.map(
      Ask.elicit("Your name?", Schema.Struct({ name: Schema.String })),
      (answer) => answer._tag === "Accept" ? `hello ${answer.content.name}` : `hello (${answer._tag})`
    ),
  render: (text) => Tools.content([Tools.text(text)])
})

/**
 * A tool that asks a name and then what the client's model makes of it: two questions, two rounds
 * in 2026. `started` counts its runs; `ended` completes when a run is interrupted.
 */
export const interview = (started: Ref.Ref<number>, ended?: Deferred.Deferred<void>) =>
  Tools.make({
    description: "Asks a name, then what the client's model makes of it.",
    mutates: false,
    handler: () =>
      Effect.gen(function*() {
        yield* Ref.update(started, (n) => n + 1)
        const who = yield* Ask.elicit("Your name?", Schema.Struct({ name: Schema.String }))
        const name = who._tag === "Accept" ? who.content.name : "nobody"
        const reply = yield* Ask.sample({
          messages: [{ role: "user", content: { type: "text", text: `Greet ${name}` } }],
          maxTokens: 20
        })
        return `${name}: ${reply.content.type === "text" ? reply.content.text : ""}`
      }).pipe(Effect.onInterrupt(() => ended === undefined ? Effect.void : Deferred.succeed(ended, undefined))),
    render: (text) => Tools.content([Tools.text(text)])
  })
