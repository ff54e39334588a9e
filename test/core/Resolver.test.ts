import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type * as Bundle from "../../src/core/Bundle.ts"
import * as ItemUri from "../../src/core/ItemUri.ts"
import * as Resolver from "../../src/core/Resolver.ts"
import * as SchemaBridge from "../../src/core/SchemaBridge.ts"
import * as Expose from "../../src/surface/Expose.ts"
import * as Surface from "../../src/surface/Surface.ts"
import * as Tools from "../../src/tools.ts"

// A surface with every member kind, a dotted namespace, and procedures with and without prose.
const Jobs = Surface.make({
  cells: { status: Surface.cell(Schema.String, "idle") },
  collections: { jobs: Surface.collection(Schema.String, Schema.Struct({ cmd: Schema.String })) },
  streams: { output: Surface.stream(Schema.String) },
  events: { finished: Surface.event(Schema.Struct({ id: Schema.String })) },
  procedures: {
    job: {
      run: {
        input: Schema.Struct({ cmd: Schema.String }),
        title: "Run a job",
        description: "Start a job and wait for it"
      },
      list: { output: Schema.Array(Schema.String), mutates: false }
    },
    "a.b": { c: { mutates: false } }
  }
})

const everything = Expose.all(Jobs)
const read = Tools.make({ description: "Read the row", mutates: false, handler: () => Effect.succeed("row") })

const names = (resolved: Bundle.Resolved) => resolved.tools.map((t) => t.name)
const uris = (resolved: Bundle.Resolved) => resolved.resources.map((r) => r.uri)

describe("Resolver.resolveExpose", () => {
  it.effect("the core mints bare URIs for every member kind and <ns>_<verb> tool names, keeping a dotted namespace", () =>
    Effect.gen(function*() {
      const tables = yield* Resolver.resolveExpose(Jobs, everything, undefined)
      assert.deepStrictEqual(tables.resources.map((r) => [r.kind, r.uri]), [
        ["cell", "surface://cells/status"],
        ["collection", "surface://collections/jobs"],
        ["stream", "surface://streams/output"],
        ["event", "surface://events/finished"]
      ])
      assert.deepStrictEqual(tables.templates.map((t) => t.uriTemplate), ["surface://collections/jobs/{id}"])
      assert.deepStrictEqual(tables.tools.map((t) => t.name), ["job_run", "job_list", "a.b_c"])
      assert.deepStrictEqual(tables.tools[2]?.origin, { _tag: "Procedure", sibling: undefined, ns: "a.b", verb: "c" })
      // A collection resource carries its whole declaration (its key schema encodes a snapshot); the others do not.
      assert.strictEqual(tables.resources[1]?.collection, Jobs.collections.jobs)
      assert.strictEqual(tables.resources[1]?.schema, Jobs.collections.jobs.value)
      assert.isFalse("collection" in (tables.resources[0] ?? {}))
    }))

  it.effect("a sibling adds its key as a URI segment and as a tool name prefix", () =>
    Effect.gen(function*() {
      const tables = yield* Resolver.resolveExpose(Jobs, everything, "t")
      assert.deepStrictEqual(tables.resources.map((r) => r.uri), [
        "surface://cells/t/status",
        "surface://collections/t/jobs",
        "surface://streams/t/output",
        "surface://events/t/finished"
      ])
      assert.deepStrictEqual(tables.templates.map((t) => t.uriTemplate), ["surface://collections/t/jobs/{id}"])
      assert.deepStrictEqual(tables.tools.map((t) => t.name), ["t_job_run", "t_job_list", "t_a.b_c"])
      assert.isTrue(tables.tools.every((t) => t.sibling === "t"))
    }))

  it.effect("an empty expose map exposes nothing: default-deny", () =>
    Effect.gen(function*() {
      const tables = yield* Resolver.resolveExpose(Jobs, {}, undefined)
      assert.deepStrictEqual(tables, { resources: [], templates: [], tools: [] })
    }))

  it.effect("members are listed in spec order whatever order the expose map was written in", () =>
    Effect.gen(function*() {
      const tables = yield* Resolver.resolveExpose(Jobs, {
        procedures: { "a.b.c": true, "job.list": true, "job.run": true }
      }, undefined)
      assert.deepStrictEqual(tables.tools.map((t) => t.name), ["job_run", "job_list", "a.b_c"])
    }))

  it.effect("a generated tool carries the procedure's title, description, mutates and compiled input", () =>
    Effect.gen(function*() {
      const tables = yield* Resolver.resolveExpose(Jobs, {
        procedures: { "job.run": true, "job.list": { mutates: true } }
      }, undefined)
      const [run, list] = tables.tools
      assert.strictEqual(run?.title, "Run a job")
      assert.strictEqual(run?.description, "Start a job and wait for it")
      assert.isTrue(run?.mutates)
      assert.strictEqual(run?.input, SchemaBridge.compile(Jobs.procedures.job.run.input))
      // The expose entry overrides what the spec declares.
      assert.isTrue(list?.mutates)
      assert.deepStrictEqual(list?.input.jsonSchema, { type: "object", properties: {} })
    }))

  it.effect("a procedure without a description gets one naming its address and its surface", () =>
    Effect.gen(function*() {
      const core = yield* Resolver.resolveExpose(Jobs, { procedures: { "job.list": true } }, undefined)
      const sibling = yield* Resolver.resolveExpose(Jobs, { procedures: { "a.b.c": true } }, "t")
      assert.strictEqual(core.tools[0]?.description, "Calls job.list on the core surface.")
      assert.strictEqual(sibling.tools[0]?.description, "Calls a.b.c on the sibling \"t\" surface.")
      assert.isUndefined(core.tools[0]?.title)
    }))

  it.effect("an expose key naming nothing is refused naming the key and whose map it is", () =>
    Effect.gen(function*() {
      const core = yield* Effect.flip(Resolver.resolveExpose(Jobs, { cells: { nope: true } }, undefined))
      assert.strictEqual(
        core.message,
        "the expose map for your surface (core.expose) names cell \"nope\", which its surface does not declare"
      )
      const sibling = yield* Effect.flip(Resolver.resolveExpose(Jobs, { procedures: { "job.fly": true } }, "t"))
      assert.strictEqual(
        sibling.message,
        "the expose map for sibling \"t\" (surfaces.t.expose) names procedure \"job.fly\", which its surface does not declare"
      )
    }))
})

describe("Resolver.scopedToolName", () => {
  it("a sibling's names take its key and an underscore; the root's stay bare", () => {
    assert.strictEqual(Resolver.scopedToolName("t", "read"), "t_read")
    assert.strictEqual(Resolver.scopedToolName(undefined, "read"), "read")
  })
})

describe("Resolver.resolveBundle", () => {
  const bundle: Bundle.Bundle = {
    core: {
      surface: Jobs,
      expose: { cells: { status: true }, collections: { jobs: true }, procedures: { "job.list": true } }
    },
    tools: {
      ping: Tools.make({
        description: "Answer pong",
        title: "Ping",
        mutates: false,
        handler: () => Effect.succeed("pong")
      })
    },
    surfaces: {
      t: {
        surface: Jobs,
        expose: { cells: { status: true }, collections: { jobs: true }, procedures: { "job.run": true } },
        tools: { read }
      },
      s: { surface: Jobs, expose: { events: { finished: true } } }
    }
  }

  it.effect("tables list the core first, then root tools, then siblings in the order given, members in spec order", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle(bundle)
      assert.deepStrictEqual(resolved.siblings, ["t", "s"])
      assert.deepStrictEqual(names(resolved), ["job_list", "ping", "t_job_run", "t_read"])
      assert.deepStrictEqual(uris(resolved), [
        "surface://cells/status",
        "surface://collections/jobs",
        "surface://cells/t/status",
        "surface://collections/t/jobs",
        "surface://events/s/finished"
      ])
      assert.deepStrictEqual(resolved.templates.map((t) => t.uriTemplate), [
        "surface://collections/jobs/{id}",
        "surface://collections/t/jobs/{id}"
      ])
    }))

  it.effect("a sibling's bespoke tool takes the prefix and its origin; a root tool stays bare", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle(bundle)
      const tRead = resolved.toolByName.get("t_read")
      assert.deepStrictEqual(tRead?.origin, { _tag: "SiblingTool", sibling: "t", name: "read" })
      assert.strictEqual(tRead?.sibling, "t")
      assert.strictEqual(tRead?.target._tag, "SiblingTool")
      const ping = resolved.toolByName.get("ping")
      assert.deepStrictEqual(ping?.origin, { _tag: "RootTool", name: "ping" })
      assert.isUndefined(ping?.sibling)
    }))

  it.effect("the indices key every URI, every collection by <sibling>/<key> or <key>, and every tool name", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle(bundle)
      assert.deepStrictEqual([...resolved.byUri.keys()], uris(resolved))
      assert.deepStrictEqual([...resolved.templateByCollection.keys()], ["jobs", "t/jobs"])
      assert.deepStrictEqual([...resolved.toolByName.keys()], names(resolved))
      assert.strictEqual(resolved.byUri.get("surface://events/s/finished")?.sibling, "s")
    }))

  it.effect("the list answers are in MCP's JSON shapes, annotated by mutates, an outputSchema on procedures only", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle(bundle)
      assert.deepStrictEqual(resolved.advertisedTools[0], {
        name: "job_list",
        description: "Calls job.list on the core surface.",
        inputSchema: { type: "object", properties: {} },
        outputSchema: {
          type: "object",
          properties: { value: { type: "array", items: { type: "string" } } },
          required: ["value"]
        },
        annotations: { readOnlyHint: true, destructiveHint: false }
      })
      assert.deepStrictEqual(resolved.advertisedTools[1], {
        name: "ping",
        title: "Ping",
        description: "Answer pong",
        inputSchema: { type: "object", properties: {} },
        annotations: { title: "Ping", readOnlyHint: true, destructiveHint: false }
      })
      const run = resolved.advertisedTools[2]
      assert.strictEqual(run?.["name"], "t_job_run")
      assert.deepStrictEqual(run?.["annotations"], { title: "Run a job", readOnlyHint: false, destructiveHint: true })
      assert.deepStrictEqual(run?.["inputSchema"], SchemaBridge.inputSchema(Jobs.procedures.job.run.input))
      // No output declared: it answers nothing, `{ "value": null }`.
      assert.deepStrictEqual(run?.["outputSchema"], {
        type: "object",
        properties: { value: { type: "null" } },
        required: ["value"]
      })
      const procedures = new Set(resolved.tools.filter((t) => t.target._tag === "Procedure").map((t) => t.name))
      assert.isTrue(
        resolved.advertisedTools.every((t) =>
          ("outputSchema" in t) === procedures.has(String(t["name"])) && typeof t["description"] === "string"
        )
      )
      assert.deepStrictEqual(resolved.advertisedResources[3], {
        uri: "surface://collections/t/jobs",
        name: "t/jobs",
        mimeType: "application/json",
        description:
          "Every item of collection \"jobs\" on the sibling \"t\" surface; read one item at surface://collections/t/jobs/{id}."
      })
      assert.deepStrictEqual(resolved.advertisedResourceTemplates, [
        { uriTemplate: "surface://collections/jobs/{id}", name: "jobs item", mimeType: "application/json" },
        { uriTemplate: "surface://collections/t/jobs/{id}", name: "t/jobs item", mimeType: "application/json" }
      ])
    }))

  it.effect("a bundle with a core that exposes nothing is served empty, not refused", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle({ core: { surface: Jobs, expose: {} } })
      assert.deepStrictEqual(resolved.advertisedTools, [])
      assert.deepStrictEqual(resolved.advertisedResources, [])
      assert.deepStrictEqual(resolved.advertisedResourceTemplates, [])
    }))

  it.effect("a bundle with neither a core nor a sibling is refused", () =>
    Effect.gen(function*() {
      for (const empty of [{}, { surfaces: {} }, { tools: { ping: read } }]) {
        const error = yield* Effect.flip(Resolver.resolveBundle(empty))
        assert.strictEqual(error._tag, "EmptyBundle")
        assert.strictEqual(
          error.message,
          "the bundle has neither a core nor a sibling: give it a core surface, at least one sibling, or both"
        )
      }
    }))

  it.effect("a sibling keyed like a collection the core exposes is refused naming both", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Resolver.resolveBundle({
        core: { surface: Jobs, expose: { collections: { jobs: true } } },
        surfaces: { jobs: { surface: Jobs, expose: {} } }
      }))
      assert.strictEqual(error._tag, "SiblingShadowsCollection")
      assert.strictEqual(
        error.message,
        "sibling \"jobs\" has the same key as the core's collection \"jobs\": surface://collections/jobs/{id} would " +
          "address both that collection's items and sibling \"jobs\"'s collections; rename the sibling or stop exposing the collection"
      )
      // A collection the core does not expose owns no addresses, so nothing is ambiguous.
      yield* Resolver.resolveBundle({
        core: { surface: Jobs, expose: {} },
        surfaces: { jobs: { surface: Jobs, expose: {} } }
      })
    }))

  it.effect("an empty sibling key or one containing a slash is refused", () =>
    Effect.gen(function*() {
      const empty = yield* Effect.flip(Resolver.resolveBundle({ surfaces: { "": { surface: Jobs, expose: {} } } }))
      assert.strictEqual(
        empty.message,
        "the sibling key is empty: a sibling key is a single segment of every URI and tool name it mints"
      )
      const slash = yield* Effect.flip(Resolver.resolveBundle({ surfaces: { "a/b": { surface: Jobs, expose: {} } } }))
      assert.strictEqual(
        slash.message,
        "the sibling key \"a/b\" contains \"/\": a sibling key is a single segment of every URI and tool name it mints"
      )
    }))

  it.effect("a root tool colliding with a sibling's generated name is refused naming both claimants", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Resolver.resolveBundle({
        tools: { a_job_run: read },
        surfaces: { a: { surface: Jobs, expose: { procedures: { "job.run": true } } } }
      }))
      assert.strictEqual(error._tag, "DuplicateToolName")
      assert.strictEqual(
        error.message,
        "tool name \"a_job_run\" is claimed twice: by the root tool \"a_job_run\" and by sibling \"a\"'s procedure \"job.run\"; rename one of them"
      )
    }))

  it.effect("a root tool colliding with a sibling's bespoke tool or a core procedure is refused naming both", () =>
    Effect.gen(function*() {
      const bespoke = yield* Effect.flip(Resolver.resolveBundle({
        tools: { a_here: read },
        surfaces: { a: { surface: Jobs, expose: {}, tools: { here: read } } }
      }))
      assert.strictEqual(
        bespoke.message,
        "tool name \"a_here\" is claimed twice: by the root tool \"a_here\" and by sibling \"a\"'s tool \"here\"; rename one of them"
      )
      const core = yield* Effect.flip(Resolver.resolveBundle({
        core: { surface: Jobs, expose: { procedures: { "job.list": true } } },
        tools: { job_list: read }
      }))
      assert.strictEqual(
        core.message,
        "tool name \"job_list\" is claimed twice: by the core's procedure \"job.list\" and by the root tool \"job_list\"; rename one of them"
      )
    }))

  it.effect("two siblings whose prefixed names meet are refused naming both", () =>
    Effect.gen(function*() {
      // "a" + "b_job.run" and "a_b" + "job.run" both mint a_b_job_run.
      const Other = Surface.make({ procedures: { b_job: { run: {} } } })
      const error = yield* Effect.flip(Resolver.resolveBundle({
        surfaces: {
          a: { surface: Other, expose: { procedures: { "b_job.run": true } } },
          a_b: { surface: Jobs, expose: { procedures: { "job.run": true } } }
        }
      }))
      assert.strictEqual(
        error.message,
        "tool name \"a_b_job_run\" is claimed twice: by sibling \"a\"'s procedure \"b_job.run\" and by sibling \"a_b\"'s procedure \"job.run\"; rename one of them"
      )
    }))

  it.effect("a sibling's unknown expose key is refused naming that sibling's map", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Resolver.resolveBundle({
        core: { surface: Jobs, expose: {} },
        surfaces: { t: { surface: Jobs, expose: { streams: { missing: true } } } }
      }))
      assert.strictEqual(error._tag, "UnknownExposeKey")
      assert.strictEqual(
        error.message,
        "the expose map for sibling \"t\" (surfaces.t.expose) names stream \"missing\", which its surface does not declare"
      )
    }))

  it.effect("a minted tool name MCP would reject is refused naming its origin", () =>
    Effect.gen(function*() {
      const spaced = yield* Effect.flip(
        Resolver.resolveBundle({ core: { surface: Jobs, expose: {} }, tools: { "say hi": read } })
      )
      assert.strictEqual(spaced._tag, "InvalidToolName")
      assert.strictEqual(
        spaced.message,
        "tool name \"say hi\" (from the root tool \"say hi\") is not a valid MCP tool name: it contains a character outside A-Z, a-z, 0-9, _, ., / and -"
      )
      const long = "x".repeat(60)
      const tooLong = yield* Effect.flip(
        Resolver.resolveBundle({ surfaces: { [long]: { surface: Jobs, expose: {}, tools: { read } } } })
      )
      assert.strictEqual(
        tooLong.message,
        `tool name "${long}_read" (from sibling "${long}"'s tool "read") is not a valid MCP tool name: it is 65 characters long, over the limit of 64`
      )
    }))

  it.effect("two members minting one resource URI are refused naming both", () =>
    Effect.gen(function*() {
      const Slashed = Surface.make({ cells: { "t/status": Surface.cell(Schema.String, "") } })
      const error = yield* Effect.flip(Resolver.resolveBundle({
        core: { surface: Slashed, expose: { cells: { "t/status": true } } },
        surfaces: { t: { surface: Jobs, expose: { cells: { status: true } } } }
      }))
      assert.strictEqual(error._tag, "DuplicateResourceUri")
      assert.strictEqual(
        error.message,
        "resource \"surface://cells/t/status\" is claimed twice: by the core's cell \"t/status\" and by sibling \"t\"'s cell \"status\"; rename one of them"
      )
    }))
})

describe("Resolver item URIs", () => {
  const bundle: Bundle.Bundle = {
    core: { surface: Jobs, expose: { collections: { jobs: true } } },
    surfaces: { t: { surface: Jobs, expose: { collections: { jobs: true } } } }
  }

  it.effect("an item URI round-trips its percent-encoded id through the template, core and sibling alike", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle(bundle)
      const [core, sibling] = resolved.templates
      assert.isDefined(core)
      assert.isDefined(sibling)
      if (core === undefined || sibling === undefined) return
      assert.strictEqual(ItemUri.itemUri(core, "a/b c"), "surface://collections/jobs/a%2Fb%20c")
      assert.strictEqual(ItemUri.itemUri(sibling, "42"), "surface://collections/t/jobs/42")
      assert.deepStrictEqual(ItemUri.parseItemUri(resolved, "surface://collections/jobs/a%2Fb%20c"), {
        template: core,
        id: "a/b c"
      })
      assert.deepStrictEqual(ItemUri.parseItemUri(resolved, "surface://collections/t/jobs/42"), {
        template: sibling,
        id: "42"
      })
    }))

  it.effect("a URI no exposed collection owns, or with a broken id, parses to nothing", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle(bundle)
      // The sibling's collection itself is a resource, never an item of a core collection "t".
      assert.isUndefined(ItemUri.parseItemUri(resolved, "surface://collections/t/jobs"))
      assert.isUndefined(ItemUri.parseItemUri(resolved, "surface://collections/s/jobs/1"))
      assert.isUndefined(ItemUri.parseItemUri(resolved, "surface://collections/jobs/%E0%A4%A"))
      assert.isUndefined(ItemUri.parseItemUri(resolved, "surface://collections/jobs/"))
      assert.isUndefined(ItemUri.parseItemUri(resolved, "surface://cells/jobs/1"))
    }))
})
