// A census of this process's V8 heap from a heap snapshot: every object counted by its kind and
// name (a closure by its function's name, an object by its constructor's, `(context)`s apart) with
// the bytes it holds itself. Two censuses taken around opening `n` sessions, differenced and divided
// by `n`, say what one session holds, ours against a peer's (bench/profile.ts idle).
import { Session } from "node:inspector/promises"
import * as v8 from "node:v8"

export type Census = Record<string, { readonly count: number; readonly bytes: number }>

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: ReadonlyArray<string>
      readonly node_types: ReadonlyArray<unknown>
      readonly location_fields?: ReadonlyArray<string>
    }
  }
  readonly nodes: ReadonlyArray<number>
  readonly locations?: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
}

// Every script's URL by its id, from the debugger (which lists the scripts already parsed).
const scriptUrls = async (): Promise<Map<number, string>> => {
  const session = new Session()
  session.connect()
  const urls = new Map<number, string>()
  session.on("Debugger.scriptParsed", (event) => {
    urls.set(Number(event.params.scriptId), event.params.url)
  })
  await session.post("Debugger.enable")
  await session.post("Debugger.disable")
  session.disconnect()
  return urls
}

const short = (url: string) =>
  url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(src|dist|bench)\//, "$1/")

/**
 * Count every live object of the heap by kind and name (after the caller's forced GC); a closure
 * is named by where its function is written as well.
 */
export const census = async (): Promise<Census> => {
  const urls = await scriptUrls()
  const chunks: Array<Buffer> = []
  for await (const chunk of v8.getHeapSnapshot()) chunks.push(chunk as Buffer)
  const snapshot = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Snapshot
  const fields = snapshot.snapshot.meta.node_fields
  const types = snapshot.snapshot.meta.node_types[0] as ReadonlyArray<string>
  const [typeAt, nameAt, sizeAt] = [fields.indexOf("type"), fields.indexOf("name"), fields.indexOf("self_size")]
  // Where each closure's function is written, by the closure's offset in `nodes`.
  const where = new Map<number, string>()
  const located = snapshot.snapshot.meta.location_fields ?? []
  const locations = snapshot.locations ?? []
  for (let i = 0; i + located.length <= locations.length && located.length > 0; i += located.length) {
    const url = urls.get(locations[i + 1]!) ?? `script ${locations[i + 1]!}`
    where.set(locations[i]!, `${short(url)}:${locations[i + 2]! + 1}`)
  }
  const out: Record<string, { count: number; bytes: number }> = {}
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt]!]!
    const raw = snapshot.strings[snapshot.nodes[i + nameAt]!] ?? ""
    // Strings and numbers by kind alone; everything else by kind and (short) name.
    const name = type === "string" || type === "number" || type === "concatenated string" || type === "sliced string"
      ? ""
      : raw.length > 60
      ? raw.slice(0, 60)
      : raw
    const place = type === "closure" ? where.get(i) : undefined
    const key = `${type}${name === "" ? "" : ` ${name}`}${place === undefined ? "" : ` ${place}`}`
    const at = out[key] ?? (out[key] = { count: 0, bytes: 0 })
    at.count += 1
    at.bytes += snapshot.nodes[i + sizeAt]!
  }
  return out
}

/** What `after` holds beyond `before`, per unit (`n`), the largest in bytes first. */
export const perUnit = (before: Census, after: Census, n: number) =>
  Object.entries(after)
    .map(([key, at]) => ({
      key,
      count: (at.count - (before[key]?.count ?? 0)) / n,
      bytes: (at.bytes - (before[key]?.bytes ?? 0)) / n
    }))
    .filter((row) => Math.abs(row.bytes) >= 8 || Math.abs(row.count) >= 0.5)
    .sort((a, b) => b.bytes - a.bytes)
