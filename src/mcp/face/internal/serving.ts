/**
 * What a face does for each request, as functions over what it shares (`Env`): a tool call that
 * answers a retired tool as a result, a read bounded by the read deadline, a resource followed
 * across the roster's and the app's generations, a prompt looked up, a completion. The face wires
 * them once per bundle; keeping them here keeps `Face` the shape and its assembly.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Bundle from "../../../core/Bundle.ts"
import type * as ConnectionPool from "../../../core/ConnectionPool.ts"
import type * as Engine from "../../../core/Engine.ts"
import { UnknownResource, Unreadable } from "../../../core/EngineError.ts"
import type { Retired, UnknownTool } from "../../../core/EngineError.ts"
import type * as Roster from "../../../core/Roster.ts"
import { messageOf } from "../../../core/ToolFailure.ts"
import * as ToolResult from "../../../core/ToolResult.ts"
import * as Watch from "../../../core/Watch.ts"
import * as AppResources from "../AppResources.ts"
import * as Completion from "../Completion.ts"
import * as Prompts from "../Prompts.ts"
import * as RpcError from "../RpcError.ts"

/** A completion request: a prompt's argument, or a resource template's variable, with what is typed so far. */
export interface CompleteRequest {
  readonly ref: { readonly type: "ref/prompt"; readonly name: string } | {
    readonly type: "ref/resource"
    readonly uri: string
  }
  readonly argument: { readonly name: string; readonly value: string }
  readonly context?: { readonly arguments?: { readonly [name: string]: string } | undefined } | undefined
}

/** What the face's module-level functions share. */
export interface Env {
  readonly engine: Engine.Engine["Service"]
  readonly roster: Roster.Roster
  readonly pool: ConnectionPool.Pool<Bundle.Clients>
  readonly prompts: SubscriptionRef.SubscriptionRef<Prompts.Table>
  readonly apps: SubscriptionRef.SubscriptionRef<AppResources.Compiled>
  readonly readDeadline: Duration.Duration
  readonly coalesce: Duration.Input
  readonly watchers: Ref.Ref<number>
}

// A retired tool is answered as a result, so the model reads why; anything else unknown is refused.
// (One handler of the cause, built once: `catchTag` builds its predicate and frames on every call.)
export const callTool = (env: Env) => (name: string, args: unknown) =>
  Effect.catchCause(env.engine.call(name, args), retired)

const retired = (
  cause: Cause.Cause<UnknownTool | Retired>
): Effect.Effect<ToolResult.ToolResult, UnknownTool> => {
  const failure = cause.reasons.find(Cause.isFailReason)
  return failure?.error._tag === "Retired"
    ? Effect.succeed(ToolResult.failure(failure.error.tombstone))
    // Whatever else it holds (an UnknownTool, an interruption) passes through as it came.
    : Effect.failCause(cause as Cause.Cause<UnknownTool>)
}

// Every URI outside `surface:` belongs to the app's handlers; nothing there is unknown-but-retired.
const findApp = (env: Env, uri: string): Effect.Effect<AppResources.Found, UnknownResource> =>
  Effect.flatMap(SubscriptionRef.get(env.apps), (compiled) => {
    const found = AppResources.find(compiled, uri)
    return found === undefined ? Effect.fail(new UnknownResource({ uri })) : Effect.succeed(found)
  })

export const checkUri = (env: Env) => (uri: string): Effect.Effect<void, RpcError.Refusal> =>
  AppResources.isSurfaceUri(uri) ? Effect.asVoid(env.engine.resolve(uri)) : Effect.asVoid(findApp(env, uri))

export const readResource =
  (env: Env) => (uri: string): Effect.Effect<ReadonlyArray<ToolResult.ResourceContents>, RpcError.Refusal> => {
    const reading: Effect.Effect<ReadonlyArray<ToolResult.ResourceContents>, RpcError.Refusal> =
      AppResources.isSurfaceUri(uri)
        ? Effect.map(env.engine.read(uri), (contents) => [contents])
        : Effect.flatMap(findApp(env, uri), AppResources.read)
    return Effect.timeoutOrElse(reading, {
      duration: env.readDeadline,
      orElse: () =>
        Effect.fail(new Unreadable({ uri, reason: `no answer within ${Duration.format(env.readDeadline)}` }))
    })
  }

// An app resource is followed under each table in turn; one without `changes` never changes, so its
// subscription stands, silent, until the table moves.
const followApp = (env: Env, uri: string) => ({ opened, pulse }: Watch.Signals) =>
  Watch.acrossGenerations(SubscriptionRef.changes(env.apps), (compiled): Effect.Effect<void, RpcError.Refusal> => {
    const found = AppResources.find(compiled, uri)
    if (found === undefined) return Effect.fail(new UnknownResource({ uri }))
    const changes = AppResources.changes(found)
    return Effect.andThen(
      opened,
      changes === undefined ? Effect.never : Stream.runForEach(changes, () => pulse).pipe(
        Effect.mapError((error) =>
          new RpcError.ProtocolError({
            code: RpcError.internalError,
            message: `the changes of resource ${uri} failed: ${messageOf(error)}`,
            data: { uri }
          })
        )
      )
    )
  })

export const watch =
  (env: Env) => (uri: string, onChange: Effect.Effect<void>, onOpen: Effect.Effect<void> = Effect.void) =>
    AppResources.isSurfaceUri(uri)
      ? env.engine.watch(uri, onChange, onOpen)
      : Effect.andThen(
        findApp(env, uri),
        Watch.run({
          uri,
          follow: followApp(env, uri),
          onChange,
          onOpen,
          coalesce: env.coalesce,
          watchers: env.watchers
        })
      )

const unknownPrompt = (name: string) =>
  new RpcError.ProtocolError({ code: RpcError.invalidParams, message: `unknown prompt "${name}"`, data: { name } })

export const promptNamed = (env: Env, name: string) =>
  Effect.flatMap(SubscriptionRef.get(env.prompts), (table) => {
    const prompt = Object.hasOwn(table, name) ? table[name] : undefined
    return prompt === undefined ? Effect.fail(unknownPrompt(name)) : Effect.succeed(prompt)
  })

export const complete =
  (env: Env) => (request: CompleteRequest): Effect.Effect<Completion.Completion, RpcError.Refusal> =>
    Effect.gen(function*() {
      const { argument, ref } = request
      const context = { arguments: request.context?.arguments ?? {} }
      if (ref.type === "ref/prompt") {
        const prompt = yield* promptNamed(env, ref.name)
        return yield* Completion.run(argument.name, Prompts.completerOf(prompt, argument.name), argument.value, context)
      }
      // A collection's item template has one variable, the item's id, completed from live keys.
      const keys = yield* env.engine.collectionKeys(ref.uri)
      if (keys !== undefined)
        return argument.name === "id" ? Completion.bound(Completion.byPrefix(keys, argument.value)) : Completion.empty
      const compiled = yield* SubscriptionRef.get(env.apps)
      if (!AppResources.hasTemplate(compiled, ref.uri)) {
        return yield* new RpcError.ProtocolError({
          code: RpcError.invalidParams,
          message: `unknown resource template ${ref.uri}`,
          data: { uri: ref.uri }
        })
      }
      return yield* Completion.run(
        argument.name,
        AppResources.completerOf(compiled, ref.uri, argument.name),
        argument.value,
        context
      )
    })
