/**
 * Reading and watching the resources of a served bundle, independent of any protocol engine.
 *
 * Reads are snapshot-first: a cell, collection or stream answers with the first frame its
 * subscription yields, so a source that opens empty is an error, never a silent `null`. An event has
 * no snapshot and reads as `null`. A collection item is read with a deadline, so a source that never
 * answers fails instead of holding the request. Watching turns a member's changes into bare
 * "updated" pulses, the only thing MCP's `notifications/resources/updated` carries.
 *
 * @since 0.1.0
 */
import { Data, Duration, Effect, Option, Result, Schema, Stream } from "effect"
import type * as Bundle from "../core/Bundle.ts"
import * as Json from "../core/Json.ts"
import { LinkError } from "../core/LinkError.ts"
import type * as Client from "../surface/Client.ts"

/**
 * A request the protocol itself refuses (as opposed to a tool failure, which is a result).
 *
 * @since 0.1.0
 */
export class ProtocolError extends Data.TaggedError("ProtocolError")<{
  readonly code: number
  readonly message: string
  readonly data?: Json.JsonObject
}> {}

/** JSON-RPC's "invalid params", which MCP uses for an unknown resource or tool. */
export const invalidParams = -32602
/** JSON-RPC's "internal error". */
export const internalError = -32603

/**
 * What a URI addresses: a whole member, or one item of an exposed collection.
 *
 * @since 0.1.0
 */
export type Target =
  | { readonly _tag: "Member"; readonly resource: Bundle.Resource }
  | { readonly _tag: "Item"; readonly template: Bundle.Template; readonly id: string }

/**
 * The answer to `resources/read`.
 *
 * @since 0.1.0
 */
export interface Contents {
  readonly uri: string
  readonly mimeType: "application/json"
  readonly text: string
}

const encoders = new WeakMap<object, (value: unknown) => Effect.Effect<unknown, Schema.SchemaError>>()

/**
 * The wire (JSON) form of a value of a declared schema, encoded once per schema.
 *
 * @since 0.1.0
 */
export const encodeWith = (schema: Schema.Codec<unknown, unknown>) => (value: unknown): Effect.Effect<unknown, Schema.SchemaError> => {
  let encode = encoders.get(schema)
  if (encode === undefined) {
    encode = Schema.encodeUnknownEffect(Schema.toCodecJson(schema))
    encoders.set(schema, encode)
  }
  return encode(value)
}

/**
 * The client a member is read through: the core's or its sibling's. A factory that returned no
 * client for a sibling on the roster is a link fault, so the pool re-dials.
 *
 * @since 0.1.0
 */
export const clientOf = (clients: Bundle.Clients, sibling: string | undefined): Effect.Effect<Client.AnyClient, LinkError> => {
  const client = sibling === undefined
    ? clients.core
    : Object.hasOwn(clients.clients, sibling) ? clients.clients[sibling] : undefined
  return client === undefined
    ? Effect.fail(new LinkError({ phase: "closed", reason: `the client factory returned no client for ${sibling === undefined ? "the core" : `sibling "${sibling}"`}` }))
    : Effect.succeed(client)
}

const unreadable = (uri: string, reason: string) =>
  new ProtocolError({ code: internalError, message: `resource ${uri} could not be read: ${reason}`, data: { uri } })

const encodeOrRefuse = (uri: string, schema: Schema.Codec<unknown, unknown>, value: unknown) =>
  Effect.mapError(encodeWith(schema)(value), (e) => unreadable(uri, `its value does not match its declared schema (${e.message})`))

const encodeEntries = (uri: string, template: { readonly key: Schema.Codec<unknown, unknown>; readonly value: Schema.Codec<unknown, unknown> }, items: ReadonlyMap<unknown, unknown>) =>
  Effect.map(
    Effect.forEach(items, ([key, item]) =>
      Effect.zip(encodeOrRefuse(uri, template.key, key), encodeOrRefuse(uri, template.value, item))),
    (pairs) => Object.fromEntries(pairs.map(([key, item]) => [String(key), item]))
  )

const contents = (uri: string, json: unknown): Contents => ({ uri, mimeType: "application/json", text: JSON.stringify(json) ?? "null" })

/**
 * Read a target through a client, snapshot first. Collection items wait at most `itemDeadline`.
 *
 * @since 0.1.0
 */
export const read = (
  uri: string,
  target: Target,
  clients: Bundle.Clients,
  itemDeadline: Duration.Input
): Effect.Effect<Contents, ProtocolError | LinkError> =>
  Effect.gen(function*() {
    if (target._tag === "Item") {
      const { id, template } = target
      const client = yield* clientOf(clients, template.sibling)
      const key = yield* Schema.decodeUnknownEffect(Schema.toCodecJson(template.collection.key))(id).pipe(
        Effect.mapError((e) => new ProtocolError({ code: invalidParams, message: `resource ${uri}: "${id}" is not a key of collection ${template.key} (${e.message})`, data: { uri } }))
      )
      const member = client.collections[template.key]
      if (member === undefined) return yield* unreadable(uri, `the client serves no collection ${template.key}`)
      // The key was decoded with this collection's own key schema, which `get`'s parameter is typed by.
      const found = yield* member.get(key as never).pipe(
        Effect.timeoutOrElse({
          duration: itemDeadline,
          orElse: () => Effect.fail(unreadable(uri, `the collection did not answer within ${Duration.format(Duration.fromInputUnsafe(itemDeadline))}`))
        })
      )
      if (Option.isNone(found)) {
        return yield* new ProtocolError({ code: invalidParams, message: `resource ${uri} not found: collection ${template.key} has no item "${id}"`, data: { uri } })
      }
      return contents(uri, yield* encodeOrRefuse(uri, template.collection.value, found.value))
    }
    const { resource } = target
    const client = yield* clientOf(clients, resource.sibling)
    switch (resource.kind) {
      case "event":
        return contents(uri, null)
      case "cell": {
        const member = client.cells[resource.key]
        if (member === undefined) return yield* unreadable(uri, `the client serves no cell ${resource.key}`)
        return contents(uri, yield* encodeOrRefuse(uri, resource.schema, yield* member.read))
      }
      case "stream": {
        const member = client.streams[resource.key]
        if (member === undefined) return yield* unreadable(uri, `the client serves no stream ${resource.key}`)
        const backlog = yield* member.read
        return contents(uri, yield* Effect.forEach(backlog, (entry) => encodeOrRefuse(uri, resource.schema, entry)))
      }
      case "collection": {
        const member = client.collections[resource.key]
        const collection = resource.collection
        if (member === undefined || collection === undefined) {
          return yield* unreadable(uri, `the client serves no collection ${resource.key}`)
        }
        return contents(uri, yield* encodeEntries(uri, collection, yield* member.read))
      }
    }
  }).pipe(
    // A snapshot-first source that ended empty is a read that failed, not a dead link.
    Effect.catchTag("NoSnapshot", (e) => Effect.fail(unreadable(uri, e.message)))
  )

/**
 * The changes of a target as a stream of pulses. The first frame of a snapshot-first member is the
 * state the subscriber already has, so it is skipped when `skipSnapshot` is set (a first
 * subscription) and counted as a change otherwise (a re-subscription after the link dropped, when
 * the state may have moved while no one was listening).
 *
 * @since 0.1.0
 */
export const changes = (
  target: Target,
  clients: Bundle.Clients,
  skipSnapshot: boolean
): Stream.Stream<void, ProtocolError | LinkError> =>
  Stream.unwrap(Effect.gen(function*(): Effect.fn.Return<Stream.Stream<void, ProtocolError | LinkError>, LinkError> {
    const skip = <A, E>(stream: Stream.Stream<A, E>) => skipSnapshot ? Stream.drop(stream, 1) : stream
    if (target._tag === "Item") {
      const { id, template } = target
      const client = yield* clientOf(clients, template.sibling)
      const member = client.collections[template.key]
      if (member === undefined) return Stream.fail(unreadable(itemLabel(template, id), "no such collection"))
      const key = yield* Effect.orElseSucceed(Schema.decodeUnknownEffect(Schema.toCodecJson(template.collection.key))(id), () => id)
      return member.subscribe.pipe(
        // An item changes when its wire form changes; comparing JSON text makes that structural.
        Stream.map((items) => {
          const item = items.get(key)
          return item === undefined ? "" : safeText(item)
        }),
        Stream.changes,
        skip,
        Stream.as(undefined)
      )
    }
    const { resource } = target
    const client = yield* clientOf(clients, resource.sibling)
    const member: { readonly subscribe: Stream.Stream<unknown, LinkError> } | undefined =
      resource.kind === "cell" ? client.cells[resource.key]
      : resource.kind === "collection" ? client.collections[resource.key]
      : resource.kind === "stream" ? client.streams[resource.key]
      : client.events[resource.key]
    if (member === undefined) return Stream.fail(unreadable(resource.uri, `the client serves no ${resource.kind} ${resource.key}`))
    // An event has no snapshot: every pulse is a change.
    return Stream.as(resource.kind === "event" ? member.subscribe : skip(member.subscribe), undefined)
  }))

const itemLabel = (template: Bundle.Template, id: string) => template.uriTemplate.replace("{id}", encodeURIComponent(id))

// A value with no JSON form still needs a stable text to compare; its failure message is one.
const safeText = (value: unknown): string => Result.getOrElse(Json.stringify(value), (e) => e.message)
