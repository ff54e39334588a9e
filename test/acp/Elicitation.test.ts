// A remote server's question reaches the person through their editor: in an ACP session whose
// toolset reaches our own MCP server over 2026-07-28, a tool that asks for a form ends its round
// `input_required`, the session's toolset puts the form to the editor (`elicitation/create`), and the
// editor's answer is what the tool hears. An editor that takes no forms means the form is declined.
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AcpAgent, AcpChecks, AcpToolset, ScriptedEditor } from "effect-surface/acp"
import { handler } from "../../examples/acp/agent.ts"
import * as SessionTools from "../../examples/acp/tools.ts"
import { askingFace } from "../client/face.ts"
import { isRequest } from "./harness.ts"

const allow = ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-once" } })

/** The example agent to a scripted editor, its toolset allowed to reach the loopback server. */
const example = (options: ScriptedEditor.Options, protocol: "auto" | "2025-11-25" = "auto") =>
  ScriptedEditor.make(options).pipe(
    Effect.provide(
      Layer.effect(
        AcpAgent.AcpAgent,
        AcpAgent.make(handler, {
          agentCapabilities: { mcpCapabilities: AcpToolset.mcpCapabilities },
          session: AcpToolset.layer({ ...SessionTools.options, allowedHosts: ["127.0.0.1"], protocol })
        })
      ).pipe(Layer.provide(AcpChecks.layer))
    )
  )

const said = (updates: ReadonlyArray<Acp.SessionUpdate>) =>
  updates.flatMap((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])
    .join("")

describe("a server's question in an ACP session", () => {
  it.live(
    "a 2026 server's form is put to the person through the editor, and the editor's answer is what the tool hears",
    () =>
      Effect.gen(function*() {
        const served = yield* askingFace
        const editor = yield* example({
          script: {
            "session/request_permission": allow,
            "elicitation/create": ScriptedEditor.answer({ action: "accept", content: { name: "Ada" } })
          }
        })
        const session = yield* editor.newSession({
          mcpServers: [{ type: "http", name: "board", url: served.url, headers: [] }]
        })
        yield* editor.prompt(session, "call board__greet {}")
        assert.include(said(yield* editor.updates), "hello Ada")
        const asked = (yield* editor.log).filter(isRequest("elicitation/create"))
        assert.lengthOf(asked, 1)
        assert.include(JSON.stringify(asked[0]), "Your name?")
      }),
    30_000
  )

  it.live(
    "an editor that takes no forms is not asked, and the server hears the form declined",
    () =>
      Effect.gen(function*() {
        const served = yield* askingFace
        const editor = yield* example({
          script: { "session/request_permission": allow },
          capabilities: {}
        })
        const session = yield* editor.newSession({
          mcpServers: [{ type: "http", name: "board", url: served.url, headers: [] }]
        })
        yield* editor.prompt(session, "call board__greet {}")
        assert.include(said(yield* editor.updates), "hello (Decline)")
        assert.lengthOf((yield* editor.log).filter(isRequest("elicitation/create")), 0)
      }),
    30_000
  )

  it.live(
    "a 2025 server's elicitation request is put to the editor of the turn whose call caused it",
    () =>
      Effect.gen(function*() {
        const served = yield* askingFace
        const editor = yield* example({
          script: {
            "session/request_permission": allow,
            "elicitation/create": ScriptedEditor.answer({ action: "accept", content: { name: "Grace" } })
          }
        }, "2025-11-25")
        const session = yield* editor.newSession({
          mcpServers: [{ type: "http", name: "board", url: served.url, headers: [] }]
        })
        yield* editor.prompt(session, "call board__greet {}")
        assert.include(said(yield* editor.updates), "hello Grace")
        assert.lengthOf((yield* editor.log).filter(isRequest("elicitation/create")), 1)
      }),
    30_000
  )
})
