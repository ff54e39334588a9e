/**
 * Which capability each call needs, checked before anything is sent.
 *
 * An editor that never offered a method may answer anything, or nothing at all; a turn deserves to
 * hear that it is a configuration mismatch rather than be left waiting. The SDK keeps no record of
 * what the editor advertised, so the agent stores the `initialize` capabilities per connection and
 * every call (and every cleanup registration, and every gated `session/update`) is checked here.
 *
 * @since 0.1.0
 */
import type { ClientCapabilities } from "@agentclientprotocol/sdk"
import { NotAdvertised } from "./AcpError.ts"
import type { Method } from "./Protocol.ts"

type Gate = (caps: ClientCapabilities, params: unknown) => string | undefined

const advertised = (on: boolean | undefined | null, name: string): string | undefined => on === true ? undefined : name
const present = (on: unknown, name: string): string | undefined => on === undefined || on === null ? name : undefined

const elicitationMode = (params: unknown): unknown =>
  typeof params === "object" && params !== null ? (params as { readonly mode?: unknown }).mode : undefined

// A method missing here (one a newer SDK adds) needs nothing: it is callable the day it ships,
// and its answer is still checked against the schema that SDK ships.
const gates: { readonly [M in Method]?: Gate } = {
  "fs/read_text_file": (caps) => advertised(caps.fs?.readTextFile, "fs.readTextFile"),
  "fs/write_text_file": (caps) => advertised(caps.fs?.writeTextFile, "fs.writeTextFile"),
  "terminal/create": (caps) => advertised(caps.terminal, "terminal"),
  "terminal/output": (caps) => advertised(caps.terminal, "terminal"),
  "terminal/wait_for_exit": (caps) => advertised(caps.terminal, "terminal"),
  "terminal/kill": (caps) => advertised(caps.terminal, "terminal"),
  "terminal/release": (caps) => advertised(caps.terminal, "terminal"),
  "elicitation/create": (caps, params) => {
    const mode = elicitationMode(params)
    if (mode === "form") return present(caps.elicitation?.form, "elicitation.form")
    if (mode === "url") return present(caps.elicitation?.url, "elicitation.url")
    return present(caps.elicitation, "elicitation")
  }
}

/**
 * The capability `method` needs that `caps` lacks, as a `NotAdvertised`, or `undefined` when the
 * call may be sent. `session/request_permission` needs none; `elicitation/create` needs the mode it
 * asks for.
 *
 * @example
 * ```ts
 * import { AcpCapabilities } from "effect-surface/acp"
 * AcpCapabilities.check({ terminal: false }, "terminal/create", { command: "ls" }) // NotAdvertised (terminal)
 * AcpCapabilities.check({ fs: { readTextFile: true } }, "fs/read_text_file", { path: "/a" }) // undefined
 * ```
 *
 * @since 0.1.0
 */
export const check = (caps: ClientCapabilities, method: string, params: unknown): NotAdvertised | undefined => {
  const gate = Object.hasOwn(gates, method) ? (gates as Readonly<Record<string, Gate>>)[method] : undefined
  const missing = gate?.(caps, params)
  return missing === undefined ? undefined : new NotAdvertised({ method, capability: missing })
}

// Updates the protocol says an agent sends only to an editor that asked for them.
const updateGates: Readonly<Record<string, (caps: ClientCapabilities) => string | undefined>> = {
  notice: (caps) => present(caps.session?.notices, "session.notices"),
  compaction_update: (caps) => present(caps.session?.compaction, "session.compaction"),
  compaction_summary_chunk: (caps) => present(caps.session?.compaction, "session.compaction")
}

/**
 * The capability a `session/update` of kind `sessionUpdate` needs that `caps` lacks, or `undefined`.
 *
 * @example
 * ```ts
 * import { AcpCapabilities } from "effect-surface/acp"
 * AcpCapabilities.checkUpdate({}, "notice") // NotAdvertised (session.notices)
 * AcpCapabilities.checkUpdate({}, "agent_message_chunk") // undefined
 * ```
 *
 * @since 0.1.0
 */
export const checkUpdate = (caps: ClientCapabilities, sessionUpdate: unknown): NotAdvertised | undefined => {
  const gate = typeof sessionUpdate === "string" && Object.hasOwn(updateGates, sessionUpdate)
    ? updateGates[sessionUpdate] : undefined
  const missing = gate?.(caps)
  return missing === undefined ? undefined
    : new NotAdvertised({ method: `session/update (${String(sessionUpdate)})`, capability: missing })
}
