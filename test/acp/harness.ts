// What the ACP tests share: a turn handler served to a scripted editor in process, the warnings the
// agent logs, and the small waits that let messages already written cross the in-process streams.
import type * as Acp from "@agentclientprotocol/sdk"
import { Effect, Layer, Logger, type Scope } from "effect"
import { AcpAgent, AcpChecks, ScriptedEditor } from "effect-surface/acp"

/** Warnings (and worse) the agent logged, as `"<level> <message>"`. */
export const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (logLevel === "Warn" || logLevel === "Error")
      lines.push(`${logLevel} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
  })
  return { lines, layer: Logger.layer([logger]) }
}

/** A scripted editor connected to an agent serving `handler`. */
export const editorFor = <E, R>(
  handler: AcpAgent.Handler<E, R>,
  editor?: ScriptedEditor.Options,
  agent?: AcpAgent.Options & { readonly schema?: unknown }
): Effect.Effect<ScriptedEditor.Editor, never, Scope.Scope | Exclude<R, AcpAgent.Provided>> =>
  ScriptedEditor.make(editor).pipe(
    Effect.provide(
      Layer.effect(AcpAgent.AcpAgent, AcpAgent.make(handler, agent)).pipe(
        Layer.provide(agent?.schema === undefined ? AcpChecks.layer : AcpChecks.layerFrom(agent.schema))
      )
    )
  )

/**
 * Let what is already in flight cross the in-process streams: a few real turns of the event loop,
 * for assertions that something was *not* sent. Never a timing figure a test could fail on.
 */
export const settle = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 30)))

/** The methods of the requests the editor received, in order. */
export const methodsOf = (editor: ScriptedEditor.Editor) =>
  Effect.map(editor.requests(), (all) => all.map((r) => r.method))

export const isRequest = (method: string) => (message: Acp.AnyMessage): boolean =>
  "method" in message && "id" in message && message.method === method

export const isCancelRequest = (message: Acp.AnyMessage): boolean =>
  "method" in message && message.method === "$/cancel_request"

/** The editor received the answer to its `session/prompt` (a result with `stopReason`). */
export const isPromptAnswer = (message: Acp.AnyMessage): boolean =>
  !("method" in message) && "result" in message && typeof message.result === "object" && message.result !== null &&
  "stopReason" in message.result
