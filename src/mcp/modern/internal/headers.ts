/**
 * The headers a 2026-07-28 request carries over HTTP, checked against its body.
 *
 * The revision mirrors the method, the name a call targets and chosen tool arguments into headers,
 * so a balancer or gateway can route without reading the body. Anything that decides on a header
 * while the server acts on the body is a door for a request that says one thing and does another,
 * so a server must refuse a request whose headers and body disagree (-32020, HTTP 400). This module
 * reads the headers as Node parsed them (names lower-case) and says, in a sentence, what disagreed.
 *
 * @internal
 */
import type * as Json from "../../../core/Json.ts"
import * as Results from "../Results.ts"
import * as Wire from "../Wire.ts"

type Headers = Readonly<Record<string, string | undefined>>

const mismatch = (message: string) =>
  new Wire.Refused({ status: 400, code: Wire.codes.headerMismatch, message: `Header mismatch: ${message}` })

const sentinel = /^=\?base64\?(.*)\?=$/s
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * A header value as its sender meant it: a `=?base64?…?=` value decoded (one that does not decode
 * is `undefined`), any other value with its surrounding whitespace trimmed, as HTTP reads it.
 */
export const decode = (value: string): string | undefined => {
  const trimmed = value.trim()
  const encoded = sentinel.exec(trimmed)
  if (encoded === null) return trimmed
  const text = encoded[1]!
  return base64.test(text) ? Buffer.from(text, "base64").toString("utf8") : undefined
}

const nameOf = (method: string, params: { readonly [key: string]: unknown }): string | undefined => {
  switch (method) {
    case "tools/call":
    case "prompts/get":
      return typeof params["name"] === "string" ? params["name"] : undefined
    case "resources/read":
      return typeof params["uri"] === "string" ? params["uri"] : undefined
    case "tasks/get":
    case "tasks/update":
    case "tasks/cancel":
      return typeof params["taskId"] === "string" ? params["taskId"] : undefined
    default:
      return undefined
  }
}

/**
 * Check the standard headers against the body: `MCP-Protocol-Version` equals the envelope's
 * version, `Mcp-Method` the method (values are case-sensitive), and `Mcp-Name` the name or URI of a
 * call, prompt or read, or the task a `tasks/*` request names. The first disagreement, or `undefined`.
 */
export const standard = (
  headers: Headers,
  method: string,
  params: { readonly [key: string]: unknown },
  version: string
): Wire.Refused | undefined => {
  const labelled = headers["mcp-protocol-version"]
  if (labelled === undefined) return mismatch("the MCP-Protocol-Version header is required")
  if (labelled.trim() !== version) {
    return mismatch(`MCP-Protocol-Version header value '${labelled}' does not match _meta's '${version}'`)
  }
  const named = headers["mcp-method"]
  if (named === undefined) return mismatch("the Mcp-Method header is required")
  if (named.trim() !== method)
    return mismatch(`Mcp-Method header value '${named}' does not match body value '${method}'`)
  const expected = nameOf(method, params)
  if (expected === undefined) return undefined
  const given = headers["mcp-name"]
  if (given === undefined) return mismatch(`the Mcp-Name header is required on ${method}`)
  const decoded = decode(given)
  if (decoded === undefined) return mismatch(`Mcp-Name header value '${given}' is not valid base64`)
  return decoded === expected
    ? undefined
    : mismatch(`Mcp-Name header value '${decoded}' does not match body value '${expected}'`)
}

/** A tool argument mirrored into a header: its path of `properties` keys, and the header's name. */
export interface Mirrored {
  readonly path: ReadonlyArray<string>
  readonly header: string
}

const isRecord = (u: unknown): u is Json.JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

const memo = new WeakMap<object, ReadonlyArray<Mirrored>>()

/**
 * The arguments a tool's input schema mirrors into `Mcp-Param-*` headers (`x-mcp-header`), reached
 * through `properties` alone, as the revision allows (remembered per schema object).
 */
export const mirrored = (schema: Json.JsonObject): ReadonlyArray<Mirrored> => {
  const known = memo.get(schema)
  if (known !== undefined) return known
  const found: Array<Mirrored> = []
  const walk = (node: Json.JsonObject, path: ReadonlyArray<string>, depth: number) => {
    const properties = node["properties"]
    if (!isRecord(properties) || depth > 16) return
    for (const [key, child] of Object.entries(properties)) {
      if (!isRecord(child)) continue
      const header = child["x-mcp-header"]
      if (typeof header === "string") found.push({ path: [...path, key], header: header.toLowerCase() })
      walk(child, [...path, key], depth + 1)
    }
  }
  walk(schema, [], 0)
  memo.set(schema, found)
  return found
}

const same = (header: string, value: unknown): boolean => {
  switch (typeof value) {
    case "string":
      return header === value
    case "boolean":
      return header === String(value)
    case "number":
      return header.trim() !== "" && Number(header) === value
    default:
      return false
  }
}

/**
 * Check the `Mcp-Param-*` headers of a call against its arguments: where the tool mirrors an
 * argument that has a value, the header must be there and say the same (decoded, compared as a
 * number for a number).
 */
export const params = (
  headers: Headers,
  mirroring: ReadonlyArray<Mirrored>,
  args: unknown
): Wire.Refused | undefined => {
  for (const { header, path } of mirroring) {
    const value = Results.argumentAt(args, path)
    if (value === undefined || value === null) continue
    const given = headers[`mcp-param-${header}`]
    if (given === undefined)
      return mismatch(`the Mcp-Param-${header} header is required: the call sets ${path.join(".")}`)
    const decoded = decode(given)
    if (decoded === undefined) return mismatch(`Mcp-Param-${header} header value '${given}' is not valid base64`)
    if (!same(decoded, value)) {
      return mismatch(
        `Mcp-Param-${header} header value '${decoded}' does not match body value ${JSON.stringify(value)}`
      )
    }
  }
  return undefined
}
