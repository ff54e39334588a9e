// Scale: `tools/list` and `reroster` for bundles of 10 … 10,000 siblings (one tool each), and the
// 1,000 → 10,000 growth of each. The `tools/list` peer is the raw SDK answering a pre-built array of
// the same tools (a copy of what we advertise, so both send identical bytes); the `reroster` peer is
// a hand-written rebuild of the same tool table (names, duplicate check, JSON Schema cached per
// schema as ours is, an index by name) followed by `sendToolListChanged`. Both reroster figures end
// when the connected SDK client has received `notifications/tools/list_changed`.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { ListToolsRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Schema } from "effect"
import { Expose, Surface } from "effect-surface"
import type { Bundle } from "effect-surface"
import { McpFace } from "effect-surface/mcp"
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server/index.js"
import { count, emit, interleave, median, note, now } from "./lib/measure.ts"
import { connectOurs, connectRaw, hold } from "./lib/run.ts"

const Row = Surface.make({
  procedures: {
    row: {
      get: {
        input: Schema.Struct({ id: Schema.String, fields: Schema.optionalKey(Schema.Array(Schema.String)) }),
        output: Schema.Struct({ id: Schema.String, value: Schema.Int }),
        mutates: false,
        description: "Read one row by id."
      }
    }
  }
})
const rowExpose = Expose.make(Row, { procedures: { "row.get": true } })

type Siblings = { readonly [sibling: string]: Bundle.Sibling }

export const siblings = (n: number, swap: boolean): Siblings => {
  const out: Record<string, Bundle.Sibling> = {}
  // The swapped roster trades the first sibling for a newcomer: one leaves, one joins, N stay N.
  for (let i = swap ? 1 : 0; i < n; i++) out[`s${i}`] = { surface: Row, expose: rowExpose }
  if (swap) out["newcomer"] = { surface: Row, expose: rowExpose }
  return out
}

/** What a hand-written server keeps for its tools: the advertised array and an index by name. */
interface RawTable {
  readonly tools: Array<{ readonly name: string; readonly description: string; readonly inputSchema: unknown }>
  readonly byName: Map<string, unknown>
}

const jsonSchemas = new WeakMap<object, unknown>()
const jsonSchemaOf = (schema: Schema.Top): unknown => {
  const cached = jsonSchemas.get(schema)
  if (cached !== undefined) return cached
  const document = Schema.toJsonSchemaDocument(schema)
  const made = { ...document.schema, type: "object" }
  jsonSchemas.set(schema, made)
  return made
}

const rawRebuild = (defs: Siblings): RawTable => {
  const tools: Array<RawTable["tools"][number]> = []
  const byName = new Map<string, unknown>()
  for (const [key, def] of Object.entries(defs)) {
    for (const [ns, verbs] of Object.entries(def.surface.procedures)) {
      for (const [verb, procedure] of Object.entries(verbs)) {
        if (def.expose.procedures?.[`${ns}.${verb}`] === undefined) continue
        const name = `${key}_${ns}_${verb}`
        if (byName.has(name)) throw new Error(`duplicate tool ${name}`)
        const tool = {
          name,
          description: procedure.description ?? name,
          inputSchema: procedure.input === undefined ? { type: "object" } : jsonSchemaOf(procedure.input)
        }
        tools.push(tool)
        byName.set(name, tool)
      }
    }
  }
  return { tools, byName }
}

/** Resolve when the client next hears `tools/list_changed`. */
const listChanged = (client: Client) => {
  let waiting: (() => void) | undefined
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    const done = waiting
    waiting = undefined
    done?.()
  })
  return () => new Promise<void>((resolve) => (waiting = resolve))
}

const perOp = async (n: number, op: () => Promise<unknown>) => {
  const start = now()
  for (let i = 0; i < n; i++) await op()
  return (now() - start) / n
}

interface Sized {
  readonly list: { readonly ours: number; readonly peer: number }
  readonly reroster: { readonly ours: number; readonly peer: number }
}

const atSize = async (n: number): Promise<Sized> => {
  const held = await hold()
  try {
    const a = siblings(n, false)
    const b = siblings(n, true)
    const face = await held.run(McpFace.make({ surfaces: a, client: Effect.succeed({ clients: {} }) }))
    const ours = await connectOurs(held, face)
    const advertised = structuredClone((await held.run(face.roster.current)).advertisedTools)

    let table = rawRebuild(a)
    const rawServer: Server = new SdkServer({ name: "scale-raw", version: "0.0.0" }, {
      capabilities: { tools: { listChanged: true } }
    })
    const listed = { tools: advertised }
    rawServer.setRequestHandler(ListToolsRequestSchema, () => listed as never)
    const raw = await connectRaw(rawServer)

    const oursCount = (await ours.listTools()).tools.length
    const rawCount = (await raw.listTools()).tools.length
    if (oursCount !== n || rawCount !== n)
      throw new Error(`expected ${n} tools, listed ${oursCount} (ours) and ${rawCount} (raw)`)

    const lists = Math.min(200, Math.max(2, Math.ceil(20_000 / n)))
    const samples = count(9, 2)
    const [listOurs, listRaw] = await interleave(
      [() => perOp(lists, () => ours.listTools()), () => perOp(lists, () => raw.listTools())],
      { samples, warmup: 1 }
    ) as [Array<number>, Array<number>]

    const oursHeard = listChanged(ours)
    const rawHeard = listChanged(raw)
    let oursAt: "a" | "b" = "a"
    let rawAt: "a" | "b" = "a"
    const moveOurs = async () => {
      const heard = oursHeard()
      oursAt = oursAt === "a" ? "b" : "a"
      await held.run(face.reroster(oursAt === "a" ? a : b))
      await heard
    }
    const moveRaw = async () => {
      const heard = rawHeard()
      rawAt = rawAt === "a" ? "b" : "a"
      table = rawRebuild(rawAt === "a" ? a : b)
      await rawServer.sendToolListChanged()
      await heard
    }
    const moves = Math.min(100, Math.max(3, Math.ceil(5_000 / n)))
    const [moveOursMs, moveRawMs] = await interleave(
      [() => perOp(moves, moveOurs), () => perOp(moves, moveRaw)],
      { samples, warmup: 1 }
    ) as [Array<number>, Array<number>]
    if (table.tools.length !== n) throw new Error("the raw rebuild lost a tool")

    await ours.close()
    await raw.close()
    return {
      list: { ours: median(listOurs), peer: median(listRaw) },
      reroster: { ours: median(moveOursMs), peer: median(moveRawMs) }
    }
  } finally {
    await held.close()
  }
}

export const run = async (): Promise<void> => {
  const sizes = (process.env.BENCH_SCALE_SIZES ?? "10,100,1000,10000").split(",").map((s) => Number.parseInt(s, 10))
    .filter((n) => n > 0)
  const results = new Map<number, Sized>()
  for (const n of sizes) {
    note(`scale: ${n} siblings`)
    const sized = await atSize(n)
    results.set(n, sized)
    emit({
      bench: `scale.tools_list.n${n}.vs_raw_sdk_prebuilt_array`,
      ...sized.list,
      unit: "ms per tools/list round trip (SDK client, in-memory), median"
    })
    emit({
      bench: `scale.reroster.n${n}.vs_hand_rebuild`,
      ...sized.reroster,
      unit: "ms per roster move until the client hears tools/list_changed, median"
    })
  }
  const small = results.get(1000)
  const large = results.get(10_000)
  if (small !== undefined && large !== undefined) {
    emit({
      bench: "scale.tools_list.growth_1000_to_10000",
      ours: large.list.ours / small.list.ours,
      peer: large.list.peer / small.list.peer,
      unit: "× time(10,000)/time(1,000) (10 = linear)"
    })
    emit({
      bench: "scale.reroster.growth_1000_to_10000",
      ours: large.reroster.ours / small.reroster.ours,
      peer: large.reroster.peer / small.reroster.peer,
      unit: "× time(10,000)/time(1,000) (10 = linear)"
    })
  }
}
