import { assert, describe, it } from "@effect/vitest"
import { Effect, PubSub, Queue, Stream } from "effect"
import type * as AppResources from "../../src/mcp/face/AppResources.ts"
import * as Completion from "../../src/mcp/face/Completion.ts"
import * as Face from "../../src/mcp/face/Face.ts"
import { Board, boardExpose, makeClients } from "../../examples/board/app.ts"
import { drain, host } from "./hostHarness.ts"

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

const table = (watched: PubSub.PubSub<void>): AppResources.Table => ({
  resources: {
    "test://static-text": {
      name: "static-text",
      mimeType: "text/plain",
      read: Effect.succeed({ text: "This is the content of the static text resource." })
    },
    "test://static-binary": {
      name: "static-binary",
      description: "A PNG",
      mimeType: "image/png",
      read: Effect.succeed({ blob: PNG })
    },
    "test://watched-resource": {
      name: "watched",
      mimeType: "text/plain",
      read: Effect.succeed({ text: "watched" }),
      changes: Stream.fromPubSub(watched)
    }
  },
  templates: {
    "test://template/{id}/data": {
      name: "template",
      mimeType: "application/json",
      read: ({ id }) =>
        Effect.succeed({ text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }),
      complete: { id: Completion.fromValues(["123", "456", "789"]) }
    }
  }
})

const setup = Effect.gen(function*() {
  const { clients } = yield* makeClients
  const watched = yield* PubSub.unbounded<void>()
  const resources = table(watched)
  const face = yield* Face.make({
    core: { surface: Board, expose: boardExpose },
    client: Effect.succeed(clients),
    resources,
    coalesce: "1 millis"
  })
  return { face, h: yield* host(face), watched, resources }
})

describe("app resources", () => {
  it.live("static text, static binary and templated resources are listed and read beside the surface ones", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      const listed = (yield* Effect.promise(() => h.client.listResources())).resources.map((r) => r.uri)
      assert.includeMembers(listed, [
        "surface://cells/focus",
        "test://static-text",
        "test://static-binary",
        "test://watched-resource"
      ])
      const templates = (yield* Effect.promise(() => h.client.listResourceTemplates())).resourceTemplates.map((t) =>
        t.uriTemplate
      )
      assert.includeMembers(templates, ["surface://collections/tasks/{id}", "test://template/{id}/data"])
      const text = yield* Effect.promise(() => h.client.readResource({ uri: "test://static-text" }))
      assert.deepStrictEqual(text.contents, [{
        uri: "test://static-text",
        mimeType: "text/plain",
        text: "This is the content of the static text resource."
      }])
      const binary = yield* Effect.promise(() => h.client.readResource({ uri: "test://static-binary" }))
      assert.deepStrictEqual(binary.contents, [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG }])
      const templated = yield* Effect.promise(() => h.client.readResource({ uri: "test://template/123/data" }))
      assert.deepStrictEqual(templated.contents, [
        {
          uri: "test://template/123/data",
          mimeType: "application/json",
          text: JSON.stringify({ id: "123", templateTest: true, data: "Data for ID: 123" })
        }
      ])
      const unknown = yield* Effect.flip(Effect.tryPromise(() => h.client.readResource({ uri: "test://nothing" })))
      assert.include(String(unknown.cause), "-32602")
      assert.include(String(unknown.cause), "test://nothing")
      const ids = yield* Effect.promise(() =>
        h.client.complete({
          ref: { type: "ref/resource", uri: "test://template/{id}/data" },
          argument: { name: "id", value: "4" }
        })
      )
      assert.deepStrictEqual(ids.completion.values, ["456"])
    }))

  it.live("a watched resource's subscribers are told of each change until they unsubscribe", () =>
    Effect.gen(function*() {
      const { h, watched } = yield* setup
      yield* Effect.promise(() => h.client.subscribeResource({ uri: "test://watched-resource" }))
      yield* Effect.sleep("20 millis")
      yield* PubSub.publish(watched, undefined)
      assert.strictEqual(yield* Queue.take(h.updated), "test://watched-resource")
      yield* Effect.promise(() => h.client.unsubscribeResource({ uri: "test://watched-resource" }))
      yield* PubSub.publish(watched, undefined)
      yield* Effect.sleep("20 millis")
      assert.deepStrictEqual(yield* drain(h.updated), [])
      const unknown = yield* Effect.flip(Effect.tryPromise(() => h.client.subscribeResource({ uri: "test://nothing" })))
      assert.include(String(unknown.cause), "-32602")
    }))

  it.live("resources set at run time are announced, and one claiming surface: is refused leaving the table as it was", () =>
    Effect.gen(function*() {
      const { face, h, resources } = yield* setup
      yield* face.setResources({
        resources: {
          ...resources.resources,
          "test://dynamic-resource": { name: "dynamic", read: Effect.succeed({ text: "dynamic" }) }
        },
        templates: resources.templates
      })
      assert.strictEqual(yield* Queue.take(h.listChanged), "resources")
      const read = yield* Effect.promise(() => h.client.readResource({ uri: "test://dynamic-resource" }))
      assert.deepStrictEqual(read.contents, [{ uri: "test://dynamic-resource", text: "dynamic" }])
      const refused = yield* Effect.flip(
        face.setResources({
          resources: { "surface://cells/mine": { name: "mine", read: Effect.succeed({ text: "" }) } }
        })
      )
      assert.strictEqual(refused._tag, "ReservedResourceUri")
      assert.include(refused.message, "surface://cells/mine")
      assert.include(
        (yield* Effect.promise(() => h.client.listResources())).resources.map((r) => r.uri),
        "test://dynamic-resource"
      )
    }))
})
