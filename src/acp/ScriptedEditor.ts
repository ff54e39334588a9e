/**
 * An editor for tests: the SDK's own client app, connected in process, answering from a script.
 *
 * Code that asks an editor must be tested against the editors it will meet, and real editors
 * answer, refuse, hang, answer nonsense and go away. A script says, per method, which of those this
 * editor does (or computes it from the params); everything crosses real newline-delimited JSON
 * streams between the SDK's client app and the agent under test, and every message the editor
 * receives is logged in wire order, so a test can assert what was sent, when, and in what order.
 *
 * @since 0.1.0
 */
import * as Acp from "@agentclientprotocol/sdk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { AcpAgent } from "./AcpAgent.ts"
import * as Internal from "./internal/scriptedEditor.ts"
import type { Capabilities, Method } from "./Protocol.ts"

/**
 * What the editor does with one call.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const steps: ReadonlyArray<ScriptedEditor.Step<"fs/read_text_file">> = [
 *   ScriptedEditor.answer({ content: "hello" }),
 *   ScriptedEditor.refuse("no such file"),
 *   ScriptedEditor.hang,
 *   ScriptedEditor.malformed({ content: 42 }),
 *   ScriptedEditor.drop
 * ]
 * ```
 *
 * @since 0.1.0
 */
export type Step<M extends Method = Method> = Internal.Step<M>

/**
 * Answer with `value`, which must fit the method it is scripted for.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const script: ScriptedEditor.Script = { "fs/read_text_file": ScriptedEditor.answer({ content: "hello" }) }
 * ```
 *
 * @since 0.1.0
 */
export const answer = <const A>(value: A): { readonly _tag: "Answer"; readonly value: A } => ({ _tag: "Answer", value })

/**
 * Answer with anything at all, shaped or not.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const nonsense = ScriptedEditor.malformed({ content: 42 })
 * ```
 *
 * @since 0.1.0
 */
export const malformed = (value: unknown): Step<never> => ({ _tag: "Malformed", value })

/**
 * Answer with a JSON-RPC error (default code -32603).
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const no = ScriptedEditor.refuse("read-only file", -32000)
 * ```
 *
 * @since 0.1.0
 */
export const refuse = (message: string, code = -32603, data?: unknown): Step<never> => ({
  _tag: "Refuse",
  code,
  message,
  ...(data === undefined ? {} : { data })
})

/**
 * Never answer, not even to `$/cancel_request`.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const silent = ScriptedEditor.hang
 * ```
 *
 * @since 0.1.0
 */
export const hang: Step<never> = { _tag: "Hang" }

/**
 * Go away mid-call: the editor's end of the connection closes.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const gone = ScriptedEditor.drop
 * ```
 *
 * @since 0.1.0
 */
export const drop: Step<never> = { _tag: "Drop" }

/**
 * How one method is answered: always the same step, or one computed from the call (its params,
 * how many calls to it came before, and an Effect that completes if the agent cancels it).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ScriptedEditor } from "effect-surface/acp"
 *
 * const script: ScriptedEditor.Script = {
 *   "fs/read_text_file": (params) => ScriptedEditor.answer({ content: `contents of ${params.path}` }),
 *   // answers "allow" only once the agent has cancelled the request: an answer after the cancel
 *   "session/request_permission": (_params, call) =>
 *     Effect.as(call.cancelled, ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-once" } }))
 * }
 * ```
 *
 * @since 0.1.0
 */
export type Script = Internal.Script

/**
 * What a computed step knows about its call.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const second: ScriptedEditor.Script = { "fs/read_text_file": (_p, call) => call.index === 0 ? ScriptedEditor.hang : ScriptedEditor.answer({ content: "" }) }
 * ```
 *
 * @since 0.1.0
 */
export type Call = Internal.Call

/**
 * The agent answered the editor's own request with an error.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * new ScriptedEditor.AgentError({ method: "session/prompt", reason: "Internal error" }).message
 * ```
 *
 * @since 0.1.0
 */
export class AgentError extends Schema.TaggedError<AgentError>()("AgentError", {
  method: Schema.String,
  reason: Schema.String,
  code: Schema.optionalKey(Schema.Number)
}) {
  override get message(): string {
    return `the agent answered ${this.method} with an error: ${this.reason}`
  }
}

/**
 * What the scripted editor advertises and answers.
 *
 * @example
 * ```ts
 * import { ScriptedEditor } from "effect-surface/acp"
 * const options: ScriptedEditor.Options = { capabilities: { terminal: true }, script: { "terminal/create": ScriptedEditor.answer({ terminalId: "t1" }) } }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly script?: Script | undefined
  /** Sent in `initialize`. Default: exactly what the script answers (file reads and writes, terminals, form elicitation). */
  readonly capabilities?: Capabilities | undefined
}

/**
 * A connected scripted editor.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ScriptedEditor } from "effect-surface/acp"
 *
 * const turn = Effect.gen(function*() {
 *   const editor: ScriptedEditor.Editor = yield* ScriptedEditor.ScriptedEditor
 *   const session = yield* editor.newSession()
 *   const answer = yield* editor.prompt(session, "read /repo/README.md")
 *   return [answer.stopReason, yield* editor.updates]
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Editor extends Internal.Editor<AgentError> {}

/**
 * The scripted editor as a service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ScriptedEditor } from "effect-surface/acp"
 * const editor = Effect.service(ScriptedEditor.ScriptedEditor)
 * ```
 *
 * @since 0.1.0
 */
export class ScriptedEditor extends Context.Service<ScriptedEditor, Editor>()("effect-surface/ScriptedEditor") {}

/**
 * Connect a scripted editor to the `AcpAgent` in context, over real newline-delimited JSON streams,
 * and `initialize` it. Both ends close with the scope: the agent first, as a stop does (its turns
 * unwind while the editor still answers), then the editor.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpAgent, AcpSurface, ScriptedEditor } from "effect-surface/acp"
 *
 * const handler = () => Effect.asVoid(AcpSurface.request("fs/read_text_file", { path: "/a" }))
 * const test = Effect.gen(function*() {
 *   const editor = yield* ScriptedEditor.make({ script: { "fs/read_text_file": ScriptedEditor.malformed({ content: 42 }) } })
 *   const session = yield* editor.newSession()
 *   return yield* Effect.flip(editor.prompt(session, "go")) // the turn failed: MalformedAnswer
 * }).pipe(Effect.scoped, Effect.provide(AcpAgent.layer(handler)))
 * ```
 *
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<Editor, never, AcpAgent | Scope.Scope> =>
  Effect.gen(function*() {
    const toEditor = new TransformStream<Uint8Array, Uint8Array>()
    const toAgent = new TransformStream<Uint8Array, Uint8Array>()
    const agent = yield* Effect.service(AcpAgent)
    const served = yield* agent.connect(Acp.ndJsonStream(toEditor.writable, toAgent.readable))
    // Going away is closing the editor's raw output: the agent reads the end of its input.
    const goAway = Effect.promise(() => toAgent.writable.close().catch(() => undefined))
    const editor = yield* open(Acp.ndJsonStream(toAgent.writable, toEditor.readable), options, goAway)
    // The scope closes as an agent's stop does: the agent first, while its editor is still there.
    yield* Effect.addFinalizer(() => served.close)
    return editor
  })

/**
 * Connect a scripted editor to an agent on the other end of `stream` (a child process's stdio, a
 * socket) and `initialize` it. `drop` (the editor going away) runs `goAway`, which should end the
 * bytes the agent reads — an ndJSON stream's own writable does not close its output — and then
 * closes the SDK connection.
 *
 * @example
 * ```ts
 * import * as Acp from "@agentclientprotocol/sdk"
 * import { spawn } from "node:child_process"
 * import { Readable, Writable } from "node:stream"
 * import { Effect } from "effect"
 * import { ScriptedEditor } from "effect-surface/acp"
 *
 * const child = spawn("my-agent", [], { stdio: ["pipe", "pipe", "inherit"] })
 * const stream = Acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>)
 * const test = Effect.gen(function*() {
 *   const goAway = Effect.sync(() => child.stdin.end())
 *   const editor = yield* ScriptedEditor.connect(stream, { script: { "fs/read_text_file": ScriptedEditor.answer({ content: "hi" }) } }, goAway)
 *   return yield* editor.prompt(yield* editor.newSession(), "read /a")
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const connect = (
  stream: Acp.Stream,
  options?: Options,
  goAway: Effect.Effect<void> = Effect.void
): Effect.Effect<Editor, never, Scope.Scope> => open(stream, options, goAway)

const open = (
  stream: Acp.Stream,
  options: Options | undefined,
  goAway: Effect.Effect<void>
): Effect.Effect<Editor, never, Scope.Scope> =>
  Effect.gen(function*() {
    const script: Script = options?.script ?? {}
    const log = yield* SubscriptionRef.make<ReadonlyArray<Acp.AnyMessage>>([])
    const runPromise = Effect.runPromiseWith(yield* Effect.context<never>())
    let connection: Acp.ClientConnection | undefined
    const dropConnection = Effect.andThen(goAway, Effect.sync(() => connection?.close()))
    const app = Acp.client({ name: "scripted-editor" })
      .onRequest("*", Internal.responder(script, runPromise, dropConnection))
      .onNotification("*", () => {})
    connection = app.connect(Internal.recorded(stream, log))
    yield* Effect.addFinalizer(() => Effect.sync(() => connection?.close()))
    yield* Effect.orDie(agentCall("initialize", () =>
      connection.agent.request("initialize", {
        protocolVersion: Acp.PROTOCOL_VERSION,
        clientCapabilities: options?.capabilities ?? Internal.capabilitiesFor(script)
      })))
    return ScriptedEditor.of(Internal.editorOf(connection, log, dropConnection, agentCall))
  })

const agentCall = <A>(method: string, send: () => Promise<A>): Effect.Effect<A, AgentError> =>
  Effect.tryPromise({
    try: send,
    catch: (error) =>
      new AgentError({
        method,
        reason: error instanceof Error ? error.message : String(error),
        ...(typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "number"
          ? { code: (error as { code: number }).code } : {})
      })
  })

/**
 * The scripted editor as a layer over the `AcpAgent` in context.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { AcpAgent, ScriptedEditor } from "effect-surface/acp"
 *
 * const EditorLive = ScriptedEditor.layer({ script: { "fs/read_text_file": ScriptedEditor.answer({ content: "hi" }) } }).pipe(
 *   Layer.provide(AcpAgent.layer(() => Effect.void))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<ScriptedEditor, never, AcpAgent> =>
  Layer.effect(ScriptedEditor, make(options))
