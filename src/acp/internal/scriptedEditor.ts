/**
 * The scripted editor's moving parts: answering from a script, recording what arrives in wire
 * order, and the editor's face over the SDK's client connection.
 */
import * as Acp from "@agentclientprotocol/sdk"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type { Answer, Capabilities, Method } from "../Protocol.ts"

/** What the editor does with one call (documented as `ScriptedEditor.Step`). */
export type Step<M extends Method = Method> =
  | { readonly _tag: "Answer"; readonly value: Answer<M> }
  | { readonly _tag: "Malformed"; readonly value: unknown }
  | { readonly _tag: "Refuse"; readonly code: number; readonly message: string; readonly data?: unknown }
  | { readonly _tag: "Hang" }
  | { readonly _tag: "Drop" }

/** What a computed step knows about its call. */
export interface Call {
  /** How many calls to this method the editor answered before this one. */
  readonly index: number
  /** Completes when the agent sends `$/cancel_request` for this call. */
  readonly cancelled: Effect.Effect<void>
}

/** How each method is answered (documented as `ScriptedEditor.Script`). */
export type Script = {
  readonly [M in Method]?:
    | Step<M>
    | ((params: Acp.ClientRequestParamsByMethod[M], call: Call) => Step<M> | Effect.Effect<Step<M>>)
}

/** A connected scripted editor; `E` is how the agent answering its own requests with an error reads. */
export interface Editor<E> {
  /** The SDK's client connection, for what this interface does not cover. */
  readonly connection: Acp.ClientConnection
  /** Open a session (`cwd` defaults to `/`); its id. */
  readonly newSession: (request?: Partial<Acp.NewSessionRequest>) => Effect.Effect<string, E>
  /** Send a prompt and wait for the turn's answer. */
  readonly prompt: (
    sessionId: string,
    prompt: string | ReadonlyArray<Acp.ContentBlock>
  ) => Effect.Effect<Acp.PromptResponse, E>
  /** Send `session/cancel`. */
  readonly cancel: (sessionId: string) => Effect.Effect<void>
  /** Go away: the editor's end of the connection closes. */
  readonly drop: Effect.Effect<void>
  /** Every message the editor received, in wire order: requests, notifications, answers, cancels. */
  readonly log: Effect.Effect<ReadonlyArray<Acp.AnyMessage>>
  /** The first message received (now or later) that satisfies `predicate`. */
  readonly waitFor: (predicate: (message: Acp.AnyMessage) => boolean) => Effect.Effect<Acp.AnyMessage>
  /** The requests received, in order, as `{ method, params }`; only `method`'s when given. */
  readonly requests: (
    method?: string
  ) => Effect.Effect<ReadonlyArray<{ readonly method: string; readonly params: unknown }>>
  /** Every `session/update` received, in order. */
  readonly updates: Effect.Effect<ReadonlyArray<Acp.SessionUpdate>>
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

/** What an editor advertises by default: exactly what its script answers. */
export const capabilitiesFor = (script: Script): Capabilities => {
  const has = (method: Method) => Object.hasOwn(script, method)
  return {
    fs: { readTextFile: has("fs/read_text_file"), writeTextFile: has("fs/write_text_file") },
    terminal:
      (["terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release"] as const)
        .some(has),
    ...(has("elicitation/create") ? { elicitation: { form: {} } } : {})
  }
}

/** `stream` with every message it delivers appended to `log` first. */
export const recorded = (
  stream: Acp.Stream,
  log: SubscriptionRef.SubscriptionRef<ReadonlyArray<Acp.AnyMessage>>
): Acp.Stream => ({
  writable: stream.writable,
  readable: stream.readable.pipeThrough(
    new TransformStream<Acp.AnyMessage, Acp.AnyMessage>({
      transform: (message, controller) => {
        Effect.runSync(SubscriptionRef.update(log, (messages) => [...messages, message]))
        controller.enqueue(message)
      }
    })
  )
})

/** The SDK request handler answering every call as the script says (method-not-found when it is silent). */
export const responder = (
  script: Script,
  runPromise: <A>(effect: Effect.Effect<A>) => Promise<A>,
  drop: Effect.Effect<void>
) => {
  const counts = new Map<string, number>()
  return async ({ method, params, signal }: Acp.ClientRequestContext<unknown>): Promise<unknown> => {
    if (!Object.hasOwn(script, method)) throw Acp.RequestError.methodNotFound(method)
    const entry = (script as Readonly<Record<string, unknown>>)[method]
    const index = counts.get(method) ?? 0
    counts.set(method, index + 1)
    const cancelled = Effect.callback<void>((resume) => {
      if (signal.aborted) return resume(Effect.void)
      signal.addEventListener("abort", () => resume(Effect.void), { once: true })
    })
    const computed = typeof entry === "function"
      ? (entry as (p: unknown, c: Call) => unknown)(params, { index, cancelled }) : entry
    const step = (Effect.isEffect(computed) ? await runPromise(computed as Effect.Effect<Step>) : computed) as Step
    switch (step._tag) {
      case "Answer":
      case "Malformed":
        return step.value
      case "Refuse":
        throw new Acp.RequestError(step.code, step.message, step.data)
      case "Hang":
        return new Promise<never>(() => {})
      case "Drop":
        await runPromise(drop)
        return new Promise<never>(() => {})
    }
  }
}

/** The editor a test drives: its requests to the agent, and views of what it received. */
export const editorOf = <E>(
  connection: Acp.ClientConnection,
  log: SubscriptionRef.SubscriptionRef<ReadonlyArray<Acp.AnyMessage>>,
  drop: Effect.Effect<void>,
  call: <A>(method: string, send: () => Promise<A>) => Effect.Effect<A, E>
): Editor<E> => {
  const agent = connection.agent
  const messages = SubscriptionRef.get(log)
  return {
    connection,
    newSession: (request) =>
      Effect.map(
        call("session/new", () => agent.request("session/new", { cwd: "/", mcpServers: [], ...request })),
        (answer) => answer.sessionId
      ),
    prompt: (sessionId, prompt) =>
      call(
        "session/prompt",
        () =>
          agent.request("session/prompt", {
            sessionId,
            prompt: typeof prompt === "string" ? [{ type: "text", text: prompt }] : [...prompt]
          })
      ),
    cancel: (sessionId) => Effect.ignore(call("session/cancel", () => agent.notify("session/cancel", { sessionId }))),
    drop,
    log: messages,
    waitFor: (predicate) =>
      Effect.map(
        Stream.runHead(Stream.filterMap(SubscriptionRef.changes(log), (all) => {
          const found = all.find(predicate)
          return found === undefined ? Result.failVoid : Result.succeed(found)
        })),
        // `changes` never ends, so the head is always there.
        (found) => found._tag === "Some" ? found.value : (undefined as never)
      ),
    requests: (method) =>
      Effect.map(
        messages,
        (all) =>
          all.flatMap((message) =>
            "method" in message && "id" in message && (method === undefined || message.method === method)
              ? [{ method: message.method, params: message.params }]
              : []
          )
      ),
    updates: Effect.map(
      messages,
      (all) =>
        all.flatMap((message) =>
          "method" in message && !("id" in message) && message.method === "session/update" && isRecord(message.params)
            ? [message.params["update"] as Acp.SessionUpdate]
            : []
        )
    )
  }
}
