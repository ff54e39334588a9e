// The guard file, its grants projected onto a lock, and the audit rows: the parts of a guard that
// need no upstream, checked on their own.
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Context, Effect, Exit, Layer, Result } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Fields, type Json, SchemaBridge } from "effect-surface"
import { Audit, AuditKey, Grants, GuardFile, type GuardLock } from "effect-surface/guard"
import { input, numeric, schemaOf, type Spec } from "../cli/specs.ts"

const isObject = (json: Json.Json): json is Json.JsonObject =>
  typeof json === "object" && json !== null && !Array.isArray(json)
const objectOf = (json: Json.Json): Json.JsonObject => isObject(json) ? json : {}

// Any input, with a numeric argument named `limit` among its own.
const withLimit = Arbitrary.map(
  Arbitrary.all([input, numeric]),
  ([spec, limit]): Spec =>
    spec.kind === "object"
      ? { ...spec, properties: [...spec.properties, { name: "limit", spec: limit, required: true }] } : spec
)

const upstream = { name: "everything", type: "stdio", command: "node", args: ["server.js", "stdio"] }
const good = {
  upstream,
  grants: { echo: true, "get-sum": { restrict: { a: { maximum: 10 } } } },
  lock: "guard.lock.json",
  audit: "audit.jsonl"
}

const refusal = (json: unknown) =>
  Effect.map(Effect.flip(GuardFile.decode(json, { path: "/repo/guard.json" })), (error) => error.message)

const lock: GuardLock.Lock = {
  version: 1,
  upstream: "everything",
  tools: [
    {
      name: "order",
      description: "Order something",
      inputSchema: {
        type: "object",
        properties: {
          item: { type: "string", enum: ["tea", "cake", "pie"] },
          qty: { type: "integer", minimum: 1, maximum: 20 },
          note: { type: "string", pattern: "^[a-z ]*$" },
          urgent: { type: "boolean" },
          tags: { type: "array", items: { type: "string" } }
        },
        required: ["item", "qty"]
      },
      _meta: { "vendor/x": true }
    },
    { name: "ping", inputSchema: { type: "object", properties: {} } }
  ]
}

const fileWith = (grants: GuardFile.GuardFile["grants"]): GuardFile.GuardFile => ({
  upstream: { name: "everything", type: "stdio", command: "node" },
  grants,
  lock: "/repo/guard.lock.json",
  audit: "/repo/audit.jsonl"
})

const project = (grants: GuardFile.GuardFile["grants"]) => Grants.project(fileWith(grants), lock)

const orderOf = (grants: GuardFile.GuardFile["grants"]) => {
  const projected = project(grants)
  assert.isTrue(Result.isSuccess(projected), Result.isFailure(projected) ? projected.failure.message : "")
  const order = Result.isSuccess(projected) ? projected.success.granted.find((tool) => tool.name === "order")
    : undefined
  return order ?? assert.fail("order is not served")
}

describe("the guard file", () => {
  it.effect("decodes, with lock and audit resolved against the file's directory", () =>
    Effect.gen(function*() {
      const file = yield* GuardFile.decode(good, { path: "/repo/guard.json" })
      assert.strictEqual(file.lock, "/repo/guard.lock.json")
      assert.strictEqual(file.audit, "/repo/audit.jsonl")
      assert.deepStrictEqual(GuardFile.grantOf(file, "get-sum"), {
        restrict: { a: { maximum: 10 } },
        failWhen: [],
        allowExtraKeys: false
      })
      assert.deepStrictEqual(GuardFile.grantOf(file, "echo"), { restrict: {}, failWhen: [], allowExtraKeys: false })
      assert.isUndefined(GuardFile.grantOf(file, "get-env"))
    }))

  it.effect("refuses a bad field with a sentence naming it", () =>
    Effect.gen(function*() {
      const { lock: _, ...lockless } = good
      assert.include(yield* refusal(lockless), `"lock": missing`)
      assert.include(
        yield* refusal({ ...good, grants: { "get-sum": { restirct: { a: { maximum: 10 } } } } }),
        `"grants.get-sum.restirct"`
      )
      assert.include(
        yield* refusal({ ...good, grants: { "get-sum": { restrict: { a: { maximum: "10" } } } } }),
        `"grants.get-sum.restrict.a.maximum"`
      )
      assert.include(
        yield* refusal({ ...good, grants: { "get-sum": { restrict: { a: { max: 10 } } } } }),
        `"grants.get-sum.restrict.a.max"`
      )
      assert.include(
        yield* refusal({ ...good, grants: { echo: { restrict: { message: { pattern: "([a-z" } } } } }),
        `"grants.echo.restrict.message.pattern"`
      )
      assert.include(yield* refusal({ ...good, upstream: { ...upstream, type: "carrier-pigeon" } }), `"upstream.type"`)
      assert.include(
        yield* refusal({ ...good, upstream: { name: "everything", type: "streamable-http", url: "not a url" } }),
        `upstream: `
      )
      assert.include(yield* refusal({ ...good, audit: 7 }), `"audit"`)
      const failWhen = (conditions: unknown) => refusal({ ...good, grants: { "get-sum": { "fail-when": conditions } } })
      assert.include(yield* failWhen([{ match: {} }]), `"grants.get-sum.fail-when[0].match": names no argument`)
      assert.include(
        yield* failWhen([{ match: { a: { present: false, minimum: 3 } } }]),
        `"grants.get-sum.fail-when[0].match.a": present: false holds only when the argument is not given`
      )
      assert.include(
        yield* failWhen([{ match: { a: { pattern: "([" } } }]),
        `"grants.get-sum.fail-when[0].match.a.pattern": not a regular expression`
      )
      assert.include(yield* failWhen([{ match: { a: { above: 3 } } }]), `"grants.get-sum.fail-when[0].match.a.above"`)
      assert.include(yield* failWhen([{ when: { a: { minimum: 3 } } }]), `"grants.get-sum.fail-when[0].when"`)
      assert.include(yield* refusal([]), "expected")
    }))

  it.live("read names the file when it is missing or not JSON", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "guard-file-"))
      const path = Path.join(dir, "guard.json")
      assert.include(
        (yield* Effect.flip(GuardFile.read(path))).message,
        `guard file ${path} cannot be used: it cannot be read`
      )
      Fs.writeFileSync(path, "{ not json")
      assert.include((yield* Effect.flip(GuardFile.read(path))).message, "it is not JSON")
      Fs.rmSync(dir, { recursive: true, force: true })
    }))
})

describe("grants projected onto a lock", () => {
  it("serves only granted tools present in the lock, and says which granted ones it lacks", () => {
    const projected = project({ order: true, ping: false, gone: true })
    assert.deepStrictEqual(
      Result.map(projected, ({ granted, missing }) => [granted.map((tool) => tool.name), missing]),
      Result.succeed([["order"], ["gone"]])
    )
  })

  it("an unrestricted grant serves the locked schema, closed to keys it does not name, and _meta as it is", () => {
    const order = orderOf({ order: true })
    assert.deepStrictEqual(order.inputSchema, { ...lock.tools[0]?.inputSchema, additionalProperties: false })
    assert.deepStrictEqual(order.meta, { "vendor/x": true })
  })

  it.effect("each restriction narrows its argument, in the served schema and in the check", () =>
    Effect.gen(function*() {
      const order = orderOf({
        order: {
          restrict: {
            item: { enum: ["cake", "pie", "soup"], maxLength: 4 },
            qty: { minimum: 2, maximum: 50 },
            note: { pattern: "^no " },
            urgent: { enum: [false] }
          }
        }
      })
      const properties = order.inputSchema["properties"]
      assert.deepStrictEqual(properties, {
        item: { type: "string", enum: ["cake", "pie"], maxLength: 4 },
        qty: { type: "integer", minimum: 2, maximum: 20 },
        note: { type: "string", pattern: "^[a-z ]*$", allOf: [{ pattern: "^no " }] },
        urgent: { type: "boolean", enum: [false] },
        tags: { type: "array", items: { type: "string" } }
      })
      const ok = { item: "pie", qty: 2, note: "no rush", urgent: false }
      assert.deepStrictEqual(yield* order.check(ok), ok)
      for (
        const [bad, field] of [[{ item: "tea" }, "item"], [{ qty: 1 }, "qty"], [{ qty: 21 }, "qty"], [
          { urgent: true },
          "urgent"
        ], [{ note: "later" }, "note"]] as const
      ) {
        const error = yield* Effect.flip(order.check({ ...ok, ...bad }))
        assert.include(error.message, `"${field}"`, JSON.stringify(bad))
      }
    }))

  it("a request guard holds when every argument it names matches, and the first that holds gives the reason", () => {
    const order = orderOf({
      order: {
        "fail-when": [
          { match: { item: { enum: ["pie"] }, qty: { maximum: 3 } }, reason: "pie comes by the box" },
          { match: { note: { pattern: "^rush" }, urgent: { present: true } } },
          { match: { note: { present: false }, qty: { minimum: 10 } } }
        ]
      }
    })
    assert.strictEqual(order.refuses({ item: "pie", qty: 2 }), "pie comes by the box")
    assert.isUndefined(order.refuses({ item: "pie", qty: 4 }))
    assert.isUndefined(order.refuses({ item: "tea", qty: 2 }))
    assert.strictEqual(
      order.refuses({ item: "tea", qty: 1, note: "rush it", urgent: false }),
      `grants.order.fail-when[1] holds: "note" matches /^rush/, and "urgent" is given`
    )
    assert.isUndefined(order.refuses({ item: "tea", qty: 1, note: "no rush", urgent: true }))
    assert.strictEqual(
      order.refuses({ item: "tea", qty: 12 }),
      `grants.order.fail-when[2] holds: "note" is not given, and "qty" is at least 10`
    )
    assert.isUndefined(order.refuses({ item: "tea", qty: 12, note: "x" }))
  })

  it("a restriction that cannot be kept is refused, naming the field of the guard file", () => {
    const refused = (grants: GuardFile.GuardFile["grants"]) => {
      const projected = project(grants)
      return Result.isFailure(projected) ? projected.failure.message : "kept"
    }
    assert.include(
      refused({ order: { restrict: { colour: { enum: ["red"] } } } }),
      "grants.order.restrict.colour cannot be kept: the locked order has no argument colour"
    )
    assert.include(
      refused({ order: { restrict: { item: { maximum: 3 } } } }),
      "grants.order.restrict.item cannot be kept: minimum and maximum apply to numbers"
    )
    assert.include(
      refused({ order: { restrict: { qty: { pattern: "^1" } } } }),
      "grants.order.restrict.qty cannot be kept: maxLength and pattern apply to strings"
    )
    assert.include(refused({ order: { restrict: { qty: { minimum: 30 } } } }), "it leaves no value")
    assert.include(refused({ order: { restrict: { item: { enum: ["soup"] } } } }), "grants.order.restrict.item")
    assert.include(
      refused({ order: { restrict: { tags: { maxLength: 3 } } } }),
      "only a string, number or boolean argument can be restricted"
    )
    assert.include(
      refused({
        order: { "fail-when": [{ match: { qty: { minimum: 5 } } }, { match: { colour: { enum: ["red"] } } }] }
      }),
      "grants.order.fail-when[1].match.colour cannot be kept: the locked tool has no argument colour"
    )
  })

  it.effect("each object of the locked schema is closed to keys it does not name, except where the grant opens it", () =>
    Effect.gen(function*() {
      const ship: GuardLock.Locked = {
        name: "ship",
        inputSchema: {
          type: "object",
          properties: {
            address: { type: "object", properties: { city: { type: "string" } } },
            parcels: { type: "array", items: { type: "object", properties: { kg: { type: "number" } } } },
            labels: { type: "object", additionalProperties: { type: "string" } },
            metadata: { type: "object" },
            via: { anyOf: [{ type: "string" }, { type: "object", properties: { hub: { type: "string" } } }] }
          }
        }
      }
      const shipOf = (grant: GuardFile.Grant) => {
        const projected = Grants.project(fileWith({ ship: grant }), {
          version: 1,
          upstream: "everything",
          tools: [ship]
        })
        return Result.isSuccess(projected) ? projected.success.granted[0] : undefined
      }
      const closed = shipOf(true) ?? assert.fail("ship is not served")
      const refusedAt = (args: unknown) => Effect.map(Effect.flip(closed.check(args)), (error) => error.issues[0]?.path)
      assert.deepStrictEqual(yield* refusedAt({ address: { city: "Oslo", zip: "0150" } }), ["address", "zip"])
      assert.deepStrictEqual(yield* refusedAt({ parcels: [{ kg: 2, declared: 900 }] }), ["parcels", 0, "declared"])
      assert.deepStrictEqual(yield* refusedAt({ metadata: { any: 1 } }), ["metadata", "any"])
      assert.deepStrictEqual(yield* refusedAt({ via: { hub: "AMS", fast: true } }), ["via", "fast"])
      // A record's keys are data: it stays as the upstream wrote it.
      const labelled = { labels: { fragile: "yes" }, via: "road" }
      assert.deepStrictEqual(yield* closed.check(labelled), labelled)

      const opened = shipOf({ "allow-extra-keys": ["metadata"] }) ?? assert.fail("ship is not served")
      assert.deepStrictEqual(yield* opened.check({ metadata: { any: 1 } }), { metadata: { any: 1 } })
      assert.isTrue(Result.isFailure(yield* Effect.result(opened.check({ address: { zip: "0150" } }))))
      assert.deepStrictEqual(shipOf({ "allow-extra-keys": true })?.inputSchema, ship.inputSchema)
    }))

  it("a schema whose keys other subschemas may name is refused unless the grant says where extra keys may pass", () => {
    const composed: GuardLock.Locked = {
      name: "merge",
      inputSchema: { allOf: [{ type: "object", properties: { a: { type: "string" } } }] }
    }
    const projected = (grant: GuardFile.Grant) =>
      Grants.project(fileWith({ merge: grant }), { version: 1, upstream: "everything", tools: [composed] })
    const refused = projected(true)
    assert.include(
      Result.isFailure(refused) ? refused.failure.message : "kept",
      `grants.merge cannot be kept: its locked input schema at # composes an object with allOf`
    )
    assert.isTrue(Result.isSuccess(projected({ "allow-extra-keys": true })))
    const unknown = project({ order: { "allow-extra-keys": ["colour"] } })
    assert.include(
      Result.isFailure(unknown) ? unknown.failure.message : "kept",
      "grants.order.allow-extra-keys cannot be kept: the locked order has no argument colour"
    )
  })

  it.prop(
    "a grant that lets extra keys through serves any locked schema exactly, and its flags are typed from the same fields",
    {
      spec: input
    },
    ({ spec }) => {
      const inputSchema = objectOf(schemaOf(spec))
      const projected = Grants.project(fileWith({ tool: { "allow-extra-keys": true } }), {
        version: 1,
        upstream: "everything",
        tools: [{ name: "tool", inputSchema }]
      })
      if (Result.isFailure(projected)) {
        // Only a schema the core's checker cannot use is refused.
        assert.isTrue(Result.isFailure(SchemaBridge.compileJsonSchema(inputSchema)), projected.failure.message)
        return
      }
      const [tool] = projected.success.granted
      assert.deepStrictEqual(tool?.inputSchema, inputSchema)
      assert.deepStrictEqual(tool?.fields, Fields.fromJsonSchema(inputSchema))
    },
    { arbitrary: { runs: 200 } }
  )

  it.prop("an unrestricted grant serves any locked schema with its objects closed and nothing else changed", {
    spec: input
  }, ({ spec }) =>
    Effect.gen(function*() {
      const inputSchema = objectOf(schemaOf(spec))
      const projected = Grants.project(fileWith({ tool: true }), {
        version: 1,
        upstream: "everything",
        tools: [{ name: "tool", inputSchema }]
      })
      if (Result.isFailure(projected)) {
        assert.isTrue(Result.isFailure(SchemaBridge.compileJsonSchema(inputSchema)), projected.failure.message)
        return
      }
      const [tool] = projected.success.granted
      const opened = (json: Json.Json): Json.Json =>
        Array.isArray(json) ? json.map(opened)
          : isObject(json)
          ? Object.fromEntries(
            Object.entries(json).filter(([key, value]) => !(key === "additionalProperties" && value === false)).map((
              [key, value]
            ) => [key, opened(value)])
          )
          : json
      assert.deepStrictEqual(opened(tool?.inputSchema ?? {}), inputSchema)
      assert.strictEqual(tool?.inputSchema["additionalProperties"], false)
      const refused = yield* Effect.flip(tool?.check({ zz_unnamed: 1 }) ?? Effect.succeed(undefined))
      assert.isTrue(
        refused.issues.some((issue) => issue.path[0] === "zz_unnamed" && issue.message === "unexpected field")
      )
    }), { arbitrary: { runs: 200 } })

  it.prop(
    "a maximum restriction on a numeric argument is the only change to the served schema",
    { limited: withLimit },
    ({ limited }) => {
      const inputSchema = objectOf(schemaOf(limited))
      const projected = Grants.project(
        fileWith({ tool: { restrict: { limit: { maximum: 5 } }, "allow-extra-keys": true } }),
        {
          version: 1,
          upstream: "everything",
          tools: [{ name: "tool", inputSchema }]
        }
      )
      const limit = limited.kind === "object" ? limited.properties.find((p) => p.name === "limit")?.spec : undefined
      if (Result.isFailure(projected)) {
        // Refused only when the bound leaves nothing: a minimum above it, or an enum with nothing at or under it.
        assert.isTrue(limit?.kind === "integer" || limit?.kind === "number")
        const leaves = limit?.kind === "integer" || limit?.kind === "number"
          ? (limit.minimum ?? -Infinity) > 5 || (limit.enum !== undefined && limit.enum.every((n) => n > 5))
          : false
        assert.isTrue(leaves, projected.failure.message)
        return
      }
      const served = Fields.fromJsonSchema(projected.success.granted[0]?.inputSchema ?? {})
      const before = Fields.fromJsonSchema(inputSchema)
      assert.strictEqual(served._tag, "Group")
      if (served._tag !== "Group" || before._tag !== "Group") return
      served.properties.forEach((property, i) => {
        const was = before.properties[i]?.field
        if (property.name !== "limit") return assert.deepStrictEqual(property.field, was)
        assert.strictEqual(property.field._tag, "Numeric")
        if (property.field._tag !== "Numeric" || was?._tag !== "Numeric") return
        assert.strictEqual(property.field.maximum, Math.min(was.maximum ?? 5, 5))
        assert.deepStrictEqual(property.field.enum, was.enum?.filter((n) => n <= 5))
        assert.deepStrictEqual({ ...property.field, maximum: 0, enum: undefined }, {
          ...was,
          maximum: 0,
          enum: undefined
        })
      })
    },
    { arbitrary: { runs: 200 } }
  )
})

describe("the audit", () => {
  const key = "k".repeat(32)
  const row: Audit.Row = {
    id: "call-1",
    time: new Date(0).toISOString(),
    door: "cli",
    tool: "get-sum",
    args: AuditKey.digest(key, { b: 2, a: 1 }),
    decision: "deny",
    reason: "value at \"a\": expected a number at most 10",
    outcome: "refused",
    durationMs: 1.5
  }

  it("digests arguments by value under a key, whatever their key order, and never holds them", () => {
    assert.strictEqual(AuditKey.digest(key, { b: 2, a: 1 }), AuditKey.digest(key, { a: 1, b: 2 }))
    assert.notStrictEqual(AuditKey.digest(key, { a: 1 }), AuditKey.digest(key, { a: 2 }))
    assert.notStrictEqual(AuditKey.digest(key, { a: 1 }), AuditKey.digest("j".repeat(32), { a: 1 }))
    assert.match(AuditKey.digest(key, { secret: "hunter2" }), /^hmac-sha256:[0-9a-f]{64}$/)
  })

  for (const name of ["audit.jsonl", "audit.db"]) {
    it.live(`writes rows to ${name} and reads them back in order`, () =>
      Effect.gen(function*() {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "audit-"))
        const path = Path.join(dir, name)
        const started: Audit.Row = {
          ...row,
          id: "call-2",
          door: "mcp",
          decision: "allow",
          reason: null,
          outcome: "started"
        }
        yield* Effect.scoped(Effect.gen(function*() {
          const log = Context.get(yield* Layer.build(Audit.layer(path)), Audit.AuditLog)
          yield* log.write(row)
          yield* log.write(started)
          yield* log.write({ ...started, outcome: "ok" })
        }))
        assert.deepStrictEqual(yield* Audit.read(path), [row, started, { ...started, outcome: "ok" }])
        Fs.rmSync(dir, { recursive: true, force: true })
      }))
  }

  it.live("an audit that cannot be opened stops the guard before any call", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(Audit.layer("/nonexistent-dir/audit.jsonl"))))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "audit /nonexistent-dir/audit.jsonl")
    }))
})
