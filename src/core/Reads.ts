/**
 * Reading and following a bundle's resources through a client, the same for every face.
 *
 * Reads are snapshot-first: a cell, collection or stream answers with the first frame its
 * subscription yields, so a source that opens empty is an error, never a silent `null`. An event has
 * no snapshot and reads as `null`. A collection item is read with a deadline, so a source that never
 * answers fails instead of holding the request. Following judges each frame of a member against what
 * its subscriber was last told, so a face can turn changes into bare "updated" pulses (all MCP's
 * `notifications/resources/updated` carries) without losing one across a re-open or sending one for
 * a state the subscriber already has.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as Schema from "effect/Schema"
import { LinkError } from "../surface/LinkError.ts"
import type * as Bundle from "./Bundle.ts"
import { NoSuchItem, Unreadable } from "./EngineError.ts"
import * as Json from "./Json.ts"

/**
 * What a URI addresses: a whole member, or one item of an exposed collection.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import type { Reads } from "effect-surface"
 *
 * declare const tasks: Bundle.Template
 * const item: Reads.Target = { _tag: "Item", template: tasks, id: "t1" } // surface://collections/tasks/t1
 * ```
 *
 * @since 0.1.0
 */
export type Target =
  | { readonly _tag: "Member"; readonly resource: Bundle.Resource }
  | { readonly _tag: "Item"; readonly template: Bundle.Template; readonly id: string }

/**
 * The answer to `resources/read` for a `surface://` URI: the member's wire form as JSON text.
 *
 * @example
 * ```ts
 * import type { Reads } from "effect-surface"
 * const focus: Reads.Contents = { uri: "surface://cells/focus", mimeType: "application/json", text: "\"tests\"" }
 * ```
 *
 * @since 0.1.0
 */
export interface Contents {
  readonly uri: string
  readonly mimeType: "application/json"
  readonly text: string
}

/**
 * The client a member is read through: the core's or its sibling's. A factory that returned no
 * client for a sibling on the roster is a link fault, so the pool re-dials.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Reads } from "effect-surface"
 *
 * declare const clients: Bundle.Clients
 * const stopwatch = Reads.clientOf(clients, "stopwatch") // Effect<Bundle.Served, LinkError>
 * ```
 *
 * @since 0.1.0
 */
export const clientOf = (
  clients: Bundle.Clients,
  sibling: string | undefined
): Effect.Effect<Bundle.Served, LinkError> => {
  const client = sibling === undefined
    ? clients.core
    : Object.hasOwn(clients.clients, sibling) ? clients.clients[sibling] : undefined
  return client === undefined
    ? Effect.fail(
      new LinkError({
        phase: "closed",
        reason: `the client factory returned no client for ${
          sibling === undefined ? "the core" : `sibling "${sibling}"`
        }`
      })
    )
    : Effect.succeed(client)
}

const unreadable = (uri: string, reason: string) => new Unreadable({ uri, reason })

const encodeOrRefuse = (uri: string, encode: Bundle.Codec, value: unknown) =>
  Effect.mapError(encode(value), (e) => unreadable(uri, `its value does not match its declared schema (${e.message})`))

// A collection's items as one JSON object, keyed by each key's wire form.
const encodeEntries = (
  items: ReadonlyMap<unknown, unknown>,
  encodeKey: Bundle.Codec,
  encode: Bundle.Codec
): Effect.Effect<Json.JsonObject, Schema.SchemaError> =>
  Effect.map(
    Effect.forEach(items, ([key, item]) => Effect.zip(encodeKey(key), encode(item))),
    (pairs) => Object.fromEntries(pairs.map(([key, item]) => [String(key), item])) as Json.JsonObject
  )

const contents = (uri: string, json: unknown): Contents => ({
  uri,
  mimeType: "application/json",
  text: JSON.stringify(json) ?? "null"
})

/**
 * Read a target through a client, snapshot first. Collection items wait at most `itemDeadline`.
 * Values travel in their wire form, through the codecs the resolver compiled for the member.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Reads } from "effect-surface"
 *
 * declare const clients: Bundle.Clients
 * declare const focus: Bundle.Resource
 * const answer = Reads.read(focus.uri, { _tag: "Member", resource: focus }, clients, "5 seconds")
 * // Effect<{ uri, mimeType: "application/json", text }, NoSuchItem | Unreadable | LinkError>
 * ```
 *
 * @since 0.1.0
 */
export const read = (
  uri: string,
  target: Target,
  clients: Bundle.Clients,
  itemDeadline: Duration.Input
): Effect.Effect<Contents, NoSuchItem | Unreadable | LinkError> =>
  Effect.gen(function*() {
    if (target._tag === "Item") {
      const { id, template } = target
      const client = yield* clientOf(clients, template.sibling)
      const key = yield* template.decodeKey(id).pipe(
        Effect.mapError((e) =>
          new NoSuchItem({ uri, reason: `names no key of collection ${template.key}: "${id}" (${e.message})` })
        )
      )
      const member = client.collections[template.key]
      if (member === undefined) return yield* unreadable(uri, `the client serves no collection ${template.key}`)
      // The key was decoded with this collection's own key schema, which `get`'s parameter is typed by.
      const found = yield* member.get(key as never).pipe(
        Effect.timeoutOrElse({
          duration: itemDeadline,
          orElse: () =>
            Effect.fail(
              unreadable(
                uri,
                `the collection did not answer within ${Duration.format(Duration.fromInputUnsafe(itemDeadline))}`
              )
            )
        })
      )
      if (Option.isNone(found)) {
        return yield* new NoSuchItem({ uri, reason: `not found: collection ${template.key} has no item "${id}"` })
      }
      return contents(uri, yield* encodeOrRefuse(uri, template.encode, found.value))
    }
    const { resource } = target
    const client = yield* clientOf(clients, resource.sibling)
    switch (resource.kind) {
      case "event":
        return contents(uri, null)
      case "cell": {
        const member = client.cells[resource.key]
        if (member === undefined) return yield* unreadable(uri, `the client serves no cell ${resource.key}`)
        return contents(uri, yield* encodeOrRefuse(uri, resource.encode, yield* member.read))
      }
      case "stream": {
        const member = client.streams[resource.key]
        if (member === undefined) return yield* unreadable(uri, `the client serves no stream ${resource.key}`)
        const backlog = yield* member.read
        return contents(uri, yield* Effect.forEach(backlog, (entry) => encodeOrRefuse(uri, resource.encode, entry)))
      }
      case "collection": {
        const member = client.collections[resource.key]
        const encodeKey = resource.encodeKey
        if (member === undefined || encodeKey === undefined) {
          return yield* unreadable(uri, `the client serves no collection ${resource.key}`)
        }
        const items = yield* member.read
        return contents(
          uri,
          yield* Effect.mapError(
            encodeEntries(items, encodeKey, resource.encode),
            (e) => unreadable(uri, `its value does not match its declared schema (${e.message})`)
          )
        )
      }
    }
  }).pipe(
    // A snapshot-first source that ended empty is a read that failed, not a dead link.
    Effect.catchTag("NoSnapshot", (e) => Effect.fail(unreadable(uri, e.message)))
  )

/**
 * One frame of a subscription, as its watcher sees it. `first` marks the first frame of one open
 * (the subscription is live from then on); `changed` says whether the frame changes what the
 * subscriber was last told, so a pulse is owed.
 *
 * @example
 * ```ts
 * import type { Reads } from "effect-surface"
 * const snapshot: Reads.Frame = { first: true, changed: false } // a fresh subscription's first frame
 * ```
 *
 * @since 0.1.0
 */
export interface Frame {
  readonly first: boolean
  readonly changed: boolean
}

/**
 * What one subscription has seen, kept across its re-opens (after a dropped link, after a roster
 * move): a signature of the last state it was told about — computed only when compared — or
 * nothing before its first frame. An event has no state, so it never sets one.
 *
 * @example
 * ```ts
 * import { Effect, Option, Ref } from "effect"
 * import type { Reads } from "effect-surface"
 * const seen: Effect.Effect<Reads.Seen> = Ref.make<Option.Option<Effect.Effect<string>>>(Option.none())
 * ```
 *
 * @since 0.1.0
 */
export type Seen = Ref.Ref<Option.Option<Effect.Effect<string>>>

const laterChanged = Effect.succeed<Frame>({ first: false, changed: true })
const firstUnchanged = Effect.succeed<Frame>({ first: true, changed: false })
const laterUnchanged = Effect.succeed<Frame>({ first: false, changed: false })

// The JSON text of a wire form; a value that will not encode still needs a stable text to compare.
const textOf = (encoded: Effect.Effect<unknown, Schema.SchemaError>): Effect.Effect<string> =>
  Effect.match(encoded, {
    onFailure: (e) => `unencodable: ${e.message}`,
    onSuccess: (json) => Result.getOrElse(Json.stringify(json), (e) => e.message)
  })

/**
 * The frames of a target through one client, each judged against `seen`. The first frame of a
 * snapshot-first member is the state now: it is a change only when a previous open told the
 * subscriber of a different state (compared by wire text), so nothing that moved while no one was
 * listening goes unannounced, and a re-open that finds the state as it was sends nothing. Every
 * later frame is a change (an item's, only when the item's own wire text moved); every event is.
 *
 * @example
 * ```ts
 * import { Effect, Option, Ref, Stream } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Reads } from "effect-surface"
 *
 * declare const clients: Bundle.Clients
 * declare const target: Reads.Target
 * const pulses = Effect.gen(function*() {
 *   const seen = yield* Ref.make<Option.Option<Effect.Effect<string>>>(Option.none())
 *   return Reads.changes(target, clients, seen).pipe(Stream.filter((frame) => frame.changed))
 * })
 * ```
 *
 * @since 0.1.0
 */
export const changes = (
  target: Target,
  clients: Bundle.Clients,
  seen: Seen
): Stream.Stream<Frame, Unreadable | LinkError> =>
  Stream.unwrap(Effect.gen(function*(): Effect.fn.Return<Stream.Stream<Frame, Unreadable | LinkError>, LinkError> {
    // Per open: whether a frame has arrived yet, and (for an item) the text of the last one.
    const opened = yield* Ref.make(false)
    const judge = (signature: Effect.Effect<string>, dedupe: boolean): Effect.Effect<Frame> =>
      Effect.flatMap(
        Ref.getAndSet(opened, true),
        (was) =>
          Effect.flatMap(Ref.getAndSet(seen, Option.some(signature)), (before): Effect.Effect<Frame> => {
            const first = !was
            // Every later frame of a member is a change: its signature is not even computed.
            if (!first && !dedupe) return laterChanged
            if (Option.isNone(before)) return first ? firstUnchanged : laterUnchanged
            return Effect.zipWith(before.value, signature, (a, b) => ({ first, changed: a !== b }))
          })
      )
    if (target._tag === "Item") {
      const { id, template } = target
      const client = yield* clientOf(clients, template.sibling)
      const member = client.collections[template.key]
      if (member === undefined) return Stream.fail(unreadable(itemLabel(template, id), "no such collection"))
      const key = yield* Effect.orElseSucceed(template.decodeKey(id), () => id)
      // A collection frame comes for any item's change; this item changed when its wire text did.
      return Stream.mapEffect(member.subscribe, (items) => {
        const item = items.get(key)
        return Effect.flatMap(
          item === undefined ? Effect.succeed("") : textOf(template.encode(item)),
          (text) => judge(Effect.succeed(text), true)
        )
      })
    }
    const { resource } = target
    const client = yield* clientOf(clients, resource.sibling)
    switch (resource.kind) {
      case "event": {
        const member = client.events[resource.key]
        if (member === undefined)
          return Stream.fail(unreadable(resource.uri, `the client serves no event ${resource.key}`))
        return Stream.mapEffect(
          member.subscribe,
          () => Effect.map(Ref.getAndSet(opened, true), (was) => ({ first: !was, changed: true }))
        )
      }
      case "cell": {
        const member = client.cells[resource.key]
        if (member === undefined)
          return Stream.fail(unreadable(resource.uri, `the client serves no cell ${resource.key}`))
        return Stream.mapEffect(member.subscribe, (value) => judge(textOf(resource.encode(value)), false))
      }
      case "collection": {
        const member = client.collections[resource.key]
        const encodeKey = resource.encodeKey
        if (member === undefined || encodeKey === undefined) {
          return Stream.fail(unreadable(resource.uri, `the client serves no collection ${resource.key}`))
        }
        return Stream.mapEffect(
          member.subscribe,
          (items) => judge(textOf(encodeEntries(items, encodeKey, resource.encode)), false)
        )
      }
      case "stream": {
        const member = client.streams[resource.key]
        if (member === undefined)
          return Stream.fail(unreadable(resource.uri, `the client serves no stream ${resource.key}`))
        // The first frame is the backlog, each later one what was appended: a log's state is how
        // long it is and what it ends with.
        const length = yield* Ref.make(0)
        return Stream.mapEffect(member.subscribe, (entries) =>
          Effect.gen(function*() {
            const first = !(yield* Ref.get(opened))
            const total = first ? entries.length : (yield* Ref.get(length)) + entries.length
            yield* Ref.set(length, total)
            const last = entries.at(-1)
            const tail = last === undefined ? Effect.succeed("") : textOf(resource.encode(last))
            return yield* judge(Effect.map(tail, (text) => `${total} ${text}`), false)
          }))
      }
    }
  }))

const itemLabel = (template: Bundle.Template, id: string) =>
  template.uriTemplate.replace("{id}", encodeURIComponent(id))

/**
 * The keys a collection holds now, as the text its item URIs carry (a key's wire form; a string key
 * as itself). Waits at most `deadline` for the source.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Reads } from "effect-surface"
 *
 * declare const template: Bundle.Template
 * declare const clients: Bundle.Clients
 * const ids = Reads.keys(template, clients, "5 seconds") // ["t1", "t10", ...]
 * ```
 *
 * @since 0.1.0
 */
export const keys = (
  template: Bundle.Template,
  clients: Bundle.Clients,
  deadline: Duration.Input
): Effect.Effect<ReadonlyArray<string>, Unreadable | LinkError> =>
  Effect.gen(function*() {
    const client = yield* clientOf(clients, template.sibling)
    const member = client.collections[template.key]
    if (member === undefined)
      return yield* unreadable(template.uriTemplate, `the client serves no collection ${template.key}`)
    const items = yield* member.read.pipe(
      Effect.timeoutOrElse({
        duration: deadline,
        orElse: () => Effect.fail(unreadable(template.uriTemplate, "its source did not answer in time"))
      }),
      Effect.catchTag("NoSnapshot", (e) => Effect.fail(unreadable(template.uriTemplate, e.message)))
    )
    const found: Array<string> = []
    for (const key of items.keys()) {
      const wire = yield* Effect.orElseSucceed(template.encodeKey(key), () => String(key))
      found.push(typeof wire === "string" ? wire : JSON.stringify(wire))
    }
    return found
  })
