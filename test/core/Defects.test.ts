// A handler that throws (a defect, not a declared error) is a bug the operator must hear about and the
// agent must not read: its text may name a host, a query, a path. The agent gets one sentence naming
// no internals, with an id; the server's log line carries the same id, the cause and its stack. A
// declared failure reaches the agent as it always has. The same holds for a bespoke tool, for plain
// tools served with serveTools, and for the guard.
import { assert, describe, it } from "@effect/vitest"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Cause, Effect, Exit, Layer, Logger, References, Schema } from "effect"
import { Client, Expose, Identity, Implementation, Surface } from "effect-surface"
import { ServeTools } from "effect-surface/serve"
import * as Tools from "effect-surface/tools"
import { record } from "../../src/guard/internal/rows.ts"
import { call, connect, textOf } from "../mcp/harness.ts"

class Full extends Schema.TaggedError<Full>()("Full", { limit: Schema.Int }) {}

const Notes = Surface.make({
  procedures: {
    notes: {
      add: { input: Schema.Struct({ text: Schema.String }), error: Full },
      save: { input: Schema.Struct({ text: Schema.String }) }
    }
  }
})

const notes = Implementation.make(Notes, {
  procedures: {
    notes: {
      add: ({ text }) => text === "" ? Effect.fail(new Full({ limit: 3 })) : Effect.void,
      save: ({ text }) =>
        Effect.sync(() => {
          throw new Error(`database down while saving ${text}`)
        })
    }
  }
})

/** One logged line as an operator reads it: level, message, annotations, and the cause in full. */
export interface Line {
  readonly level: string
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: string
}

/** A logger keeping every line, with its cause rendered as Effect's logger prints it (stack included). */
export const capture = () => {
  const lines: Array<Line> = []
  const logger = Logger.make((options) => {
    lines.push({
      level: options.logLevel,
      message: String(options.message),
      annotations: options.fiber.getRef(References.CurrentLogAnnotations),
      cause: options.cause.reasons.length > 0 ? Cause.pretty(options.cause) : ""
    })
  })
  return { lines, layer: Logger.layer([logger]) }
}

/** The id an agent's sentence names, from "… the server's log has it as a1b2c3". */
export const idIn = (text: string): string => {
  const found = /the server's log has it as ([0-9a-f]{6})$/.exec(text)
  assert.isNotNull(found, `no id in: ${text}`)
  return found?.[1] ?? ""
}

const served = connect({
  core: { surface: Notes, expose: Expose.all(Notes) },
  client: Effect.succeed({ core: Client.erase(Client.directDispatch(notes)), clients: {} }),
  tools: {
    export_all: Tools.make({
      description: "Export every note.",
      mutates: false,
      handler: () => Effect.die(new Error("cannot open /var/lib/notes/export.tmp"))
    })
  }
})

const tracing = (exporter: InMemorySpanExporter) =>
  OtelTracer.layer.pipe(
    Layer.provide(
      Layer.succeed(
        OtelTracer.OtelTracerProvider,
        new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
      )
    )
  )

describe("a defect in a handler", () => {
  it.live("a procedure that throws answers a sentence naming no internals, with the id its log line carries", () =>
    Effect.gen(function*() {
      const log = capture()
      const result = yield* Effect.gen(function*() {
        const c = yield* served
        return yield* call(c, "notes_save", { text: "milk" })
      }).pipe(Effect.provide(log.layer))
      assert.isTrue(result.isError)
      const text = textOf(result)
      assert.match(
        text,
        /^effect-surface: tool "notes_save" failed unexpectedly; the server's log has it as [0-9a-f]{6}$/
      )
      assert.notInclude(JSON.stringify(result), "database")
      assert.isUndefined(result.structuredContent)
      const id = idIn(text)
      const errors = log.lines.filter((line) => line.level === "Error")
      assert.strictEqual(errors.length, 1, JSON.stringify(log.lines))
      const [line] = errors
      assert.include(line?.message, id)
      assert.deepInclude(line?.annotations, { failure: id, tool: "notes_save" })
      assert.include(line?.cause, "database down while saving milk")
      assert.match(line?.cause ?? "", /\n\s+at /, "the log line has the stack")
    }))

  it.live("a bespoke tool's defect is answered and logged the same way", () =>
    Effect.gen(function*() {
      const log = capture()
      const result = yield* Effect.flatMap(served, (c) => call(c, "export_all")).pipe(Effect.provide(log.layer))
      const id = idIn(textOf(result))
      assert.notInclude(JSON.stringify(result), "/var/lib")
      const line = log.lines.find((l) => l.annotations["failure"] === id)
      assert.include(line?.cause, "cannot open /var/lib/notes/export.tmp")
    }))

  it.live("a declared failure reaches the agent as it always has, and nothing is logged", () =>
    Effect.gen(function*() {
      const log = capture()
      const result = yield* Effect.flatMap(served, (c) => call(c, "notes_add", { text: "" })).pipe(
        Effect.provide(log.layer)
      )
      assert.isTrue(result.isError)
      assert.strictEqual(textOf(result), `effect-surface: Full {"limit":3}`)
      assert.deepStrictEqual(result.structuredContent, { _tag: "Full", limit: 3 })
      assert.deepStrictEqual(log.lines.filter((line) => line.level === "Error"), [])
    }))

  it.live("the call's span carries the id, with the log line as an event holding the cause", () =>
    Effect.gen(function*() {
      const exporter = new InMemorySpanExporter()
      const result = yield* Effect.flatMap(served, (c) => call(c, "notes_save", { text: "milk" })).pipe(
        Effect.scoped,
        Effect.provide(tracing(exporter))
      )
      const id = idIn(textOf(result))
      const span = exporter.getFinishedSpans().find((s) => s.name === "Engine.call")
      assert.strictEqual(span?.attributes["effect_surface.failure"], id)
      assert.strictEqual(span?.attributes["error"], true)
      const event = span?.events.find((e) => e.name.includes(id))
      assert.include(String(event?.attributes?.["effect.cause"]), "database down while saving milk")
    }))

  it.live("serveTools: an execute that throws is a defect told by id; one that throws refuse(...) is read as written", () =>
    Effect.gen(function*() {
      const log = capture()
      const backup: ServeTools.PlainTool = {
        name: "backup",
        description: "Back the notes up; refuse an empty label.",
        inputSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
        execute: async ({ label }: { readonly label: string }) => {
          if (label === "") throw Tools.refuse("a backup needs a label", { field: "label" })
          throw new Error(`ECONNREFUSED 10.0.0.7:5432 while backing up ${label}`)
        }
      }
      const [failed, refused] = yield* Effect.gen(function*() {
        const c = yield* Effect.flatMap(ServeTools.faceOptions([backup]), connect)
        return [yield* call(c, "backup", { label: "nightly" }), yield* call(c, "backup", { label: "" })] as const
      }).pipe(Effect.provide(log.layer))
      const id = idIn(textOf(failed))
      assert.notInclude(JSON.stringify(failed), "10.0.0.7")
      const line = log.lines.find((l) => l.annotations["failure"] === id)
      assert.include(line?.cause, "ECONNREFUSED 10.0.0.7:5432 while backing up nightly")
      assert.match(line?.cause ?? "", /\n\s+at /)
      assert.strictEqual(textOf(refused), "effect-surface: a backup needs a label")
      assert.deepStrictEqual(refused.structuredContent, { field: "label" })
    }))

  it.live("the guard: a defect while deciding tells the caller the id of the log line that holds it", () =>
    Effect.gen(function*() {
      const log = capture()
      const audit = { path: "memory", digest: () => "hmac-sha256:test", write: () => Effect.void }
      const call = { door: "mcp", tool: "transfer", args: {}, caller: Identity.local } as const
      const answer = yield* record(audit, call, Effect.die(new Error("grant table at /etc/guard is corrupt"))).pipe(
        Effect.provide(log.layer)
      )
      const id = idIn(textOf(answer))
      assert.notInclude(textOf(answer), "/etc/guard")
      const line = log.lines.find((l) => l.annotations["failure"] === id)
      assert.include(line?.message, "the guard failed while deciding on a call to transfer")
      assert.include(line?.cause, "grant table at /etc/guard is corrupt")
    }))

  it.effect("defectsReported: a defect becomes Unexpected, a declared failure stays, and one beside a defect still wins", () => {
    const log = capture()
    return Effect.gen(function*() {
      const report = Tools.defectsReported("notes_save")
      const died = yield* Effect.flip(report(Effect.die(new Error("database down"))))
      assert.strictEqual(died._tag, "Unexpected")
      const declared = yield* Effect.flip(report(Effect.fail(new Full({ limit: 3 }))))
      assert.strictEqual(declared._tag, "Full")
      const both = yield* Effect.exit(
        report(Effect.failCause(Cause.combine(Cause.die(new Error("and a bug")), Cause.fail(new Full({ limit: 1 })))))
      )
      assert.isTrue(Exit.isFailure(both))
      assert.deepInclude(Exit.isFailure(both) ? Tools.primaryOf(both.cause) : undefined, { _tag: "Full", limit: 1 })
      assert.strictEqual(log.lines.length, 2, "each defect is logged, the declared failure alone is not")
    }).pipe(Effect.provide(log.layer))
  })
})
