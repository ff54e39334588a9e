/**
 * A remote server spoken to in MCP 2026-07-28, as the same `Remote` the 2025 session gives: list its
 * tools, call one, hear its list change.
 *
 * `server/discover` says whether the server speaks this revision at all (the dialer falls back to a
 * 2025 session when it does not) and what it offers. Tools are listed as in any revision, except that
 * a tool whose `x-mcp-header` annotations break the revision's rules is left out (a gateway would
 * route its calls on headers it cannot trust), and each kept tool's mirrored arguments are
 * remembered so every call carries them as `Mcp-Param-*` headers. A changed list arrives on a
 * `subscriptions/listen` stream, kept open for as long as the connection lives.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Results from "../../../protocol/v2026/Results.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"
import type * as Owned from "../../../surface/Owned.ts"
import type * as Channels from "../channels.ts"
import * as Progressing from "../progress.ts"
import * as Asked from "../questions.ts"
import * as Redact from "../redact.ts"
import * as Remote from "../remote.ts"
import * as Requests from "./requests.ts"
import * as Tasks from "./tasks.ts"

const decodeDiscovered = Schema.decodeUnknownResult(Results.Discovered)

/** What `server/discover` answered. */
export type Discovered = typeof Results.Discovered.Type

/**
 * Ask the server what it speaks: its discovery when it speaks this revision; otherwise a
 * `Rejected` saying why not (an error, or no `2026-07-28` among its versions).
 */
export const discover = (send: Requests.Send): Effect.Effect<Discovered, Remote.Failure> =>
  Effect.flatMap(send("server/discover", {}), (result) => {
    const decoded = decodeDiscovered(result)
    if (Result.isFailure(decoded)) {
      return Effect.fail(
        new Remote.Rejected({
          code: -32603,
          reason: `server/discover answered something else: ${Wire.sentence(decoded.failure.issue, ["result"])}`
        })
      )
    }
    return decoded.success.supportedVersions.includes(Wire.version) ? Effect.succeed(decoded.success)
      : Effect.fail(
        new Remote.Rejected({
          code: Wire.codes.unsupportedVersion,
          reason: `the server speaks ${decoded.success.supportedVersions.join(", ")}, not ${Wire.version}`
        })
      )
  })

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The `Mcp-Param-*` headers of a call: each mirrored argument that has a value, written as the
 * revision says (`McpResults.paramValue`); a null or absent one sends no header.
 */
export const paramHeaders = (
  mirrored: ReadonlyArray<Results.Mirrored>,
  args: unknown
): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const { header, path } of mirrored) {
    const value = Results.paramValue(Results.argumentAt(args, path))
    if (value !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = value
  }
  return headers
}

/** What a 2026 connection is made of: its channel, what it declares, and its handlers. */
export interface Options extends Remote.Options {
  readonly channel: Channels.Channel
  readonly send: Requests.Send
  readonly discovered: Discovered
}

const unanswered = (error: Remote.Failure | Asked.Unanswered): Remote.Failure =>
  error._tag === "McpUnanswered" ? new Remote.Rejected({ code: error.code, reason: error.reason }) : error

// How soon a listen stream that failed is opened again: after a second, doubling, then once a minute.
const RELISTEN = Schedule.min([Schedule.exponential("1 second"), Schedule.spaced("1 minute")])

// While the connection lives: one listen stream for tool-list changes, opened again a second after
// it ends (a server answers it when it shuts down), and on a widening schedule while it fails.
const listen = (send: Requests.Send, onToolsChanged: () => void, server: string) =>
  send("subscriptions/listen", { notifications: { toolsListChanged: true } }, {
    onNotice: (notice) => {
      if (notice.method === "notifications/tools/list_changed") onToolsChanged()
    }
  }).pipe(
    Effect.tapError((error) =>
      Effect.logDebug(Redact.text(`MCP server "${server}": its listen stream failed: ${error.message}`))
    ),
    Effect.retry(RELISTEN),
    Effect.ignore,
    Effect.repeat(Schedule.spaced("1 second"))
  )

/**
 * A 2026 connection over a channel the server has been discovered on, for the scope's life.
 */
export const connect = (options: Options): Effect.Effect<Owned.Owned<Remote.Remote>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { channel, discovered, send, server } = options
    const answer = Asked.answerer(options.handlers)
    const ask = (question: Asked.Question) => answer(server, question)
    // A call answered with a task is followed to its result under the same deadline.
    const drive = Requests.roundTrip(
      send,
      ask,
      (kind, result) => kind === "task" ? Tasks.follow(send, ask)(result) : undefined
    )
    const mirroring = new Map<string, ReadonlyArray<Results.Mirrored>>()
    const tools = discovered.capabilities["tools"]
    if (isRecord(tools) && tools["listChanged"] === true)
      yield* Effect.forkScoped(listen(send, options.onToolsChanged, server))
    const list = Effect.flatMap(
      Remote.listAll((params) => send("tools/list", params)),
      (listed) =>
        Effect.gen(function*() {
          const kept: Array<unknown> = []
          mirroring.clear()
          for (const tool of listed) {
            const name = isRecord(tool) && typeof tool["name"] === "string" ? tool["name"] : undefined
            const mirrored = Results.mirrored(isRecord(tool) ? tool["inputSchema"] : undefined)
            if (Result.isFailure(mirrored)) {
              yield* Effect.logWarning(
                Redact.text(`MCP server "${server}": tool "${name ?? "?"}" was left out: ${mirrored.failure}`)
              )
              continue
            }
            if (name !== undefined && mirrored.success.length > 0) mirroring.set(name, mirrored.success)
            kept.push(tool)
          }
          return kept
        })
    )
    const bounded = (timeoutMs: number) => <A>(effect: Effect.Effect<A, Remote.Failure | Asked.Unanswered>) =>
      effect.pipe(
        Effect.mapError(unanswered),
        Effect.timeoutOrElse({ duration: timeoutMs, orElse: () => Effect.fail(new Remote.TimedOut({ timeoutMs })) })
      )
    const remote: Remote.Remote = {
      protocol: "2026-07-28",
      list,
      call: (tool, args, timeoutMs) =>
        Progressing.follow((onProgress) =>
          drive("tools/call", { name: tool, arguments: args }, {
            headers: paramHeaders(mirroring.get(tool) ?? [], args),
            ...(onProgress === undefined ? {} : {
              progress: true,
              onNotice: (notice) => {
                if (notice.method === "notifications/progress") onProgress(notice.params)
              }
            })
          })
        ).pipe(bounded(timeoutMs)),
      request: (method, params, timeoutMs) => drive(method, params).pipe(bounded(timeoutMs))
    }
    return { client: remote, dispose: Effect.void, settlesPending: true, onClose: channel.onClose }
  })
