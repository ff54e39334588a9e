/**
 * A remote MCP server's question, put to the person in their editor.
 *
 * A server behind a session's toolset can stop a call to ask the person something (a form). The
 * person is in the editor, so the session's toolset answers such a form through the calling turn's
 * editor (`elicitation/create`), and what the editor answers goes back to the server. With no turn
 * to ask through, or an editor that does not take forms, the form is declined: never answered for
 * the person.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Questions from "../client/Questions.ts"
import * as AcpSurface from "./AcpSurface.ts"

/**
 * Ask the person the server's form in the calling turn's editor; decline when there is no editor
 * to ask or it refused the request.
 *
 * @example
 * ```ts
 * import { AcpElicit } from "effect-surface/acp"
 * import type { McpConfig } from "effect-surface/client"
 * const options: McpConfig.Options = { elicit: AcpElicit.elicit }
 * ```
 *
 * @since 0.1.0
 */
export const elicit = (request: Questions.ElicitRequest): Effect.Effect<Questions.ElicitAnswer> =>
  AcpSurface.request("elicitation/create", {
    mode: "form",
    message: request.message,
    // The server's schema, checked by the toolset when it was asked and by the editor's answer check.
    requestedSchema: request.requestedSchema as never
  }).pipe(
    Effect.map((answer): Questions.ElicitAnswer => {
      const { action } = answer as { readonly action: string; readonly content?: unknown }
      if (action === "accept") {
        const content = (answer as { readonly content?: unknown }).content
        return typeof content === "object" && content !== null
          ? { action: "accept", content: content as never }
          : { action: "accept" }
      }
      return action === "cancel" ? { action: "cancel" } : { action: "decline" }
    }),
    Effect.catch((error) =>
      Effect.as(
        Effect.logDebug(`a server's form for the person was declined: ${error.message}`),
        { action: "decline" } as const
      )
    )
  )
