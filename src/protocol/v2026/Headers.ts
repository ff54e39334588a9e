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
import * as Result from "effect/Result"
import type * as Json from "../../core/Json.ts"
import * as Results from "./Results.ts"
import * as Wire from "./Messages.ts"

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

const memo = new WeakMap<object, Result.Result<ReadonlyArray<Results.Mirrored>, string>>()

// What a tool's input schema mirrors (`McpResults.mirrored`), remembered per schema object: every
// call over HTTP reads it.
const mirroredBy = (schema: Json.JsonObject) => {
  const known = memo.get(schema)
  if (known !== undefined) return known
  const read = Results.mirrored(schema)
  memo.set(schema, read)
  return read
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
 * Check the `Mcp-Param-*` headers of a call to `tool` against its arguments: where the tool mirrors
 * an argument that has a value, the header must be there and say the same (decoded, compared as a
 * number for a number). A tool whose schema mirrors what the revision forbids (a `number`, a name
 * that is no header token, one header twice) cannot be called over HTTP at all: -32602, naming why.
 */
export const params = (
  headers: Headers,
  tool: string,
  schema: Json.JsonObject,
  args: unknown
): Wire.Refused | undefined => {
  const mirroring = mirroredBy(schema)
  if (Result.isFailure(mirroring)) {
    return new Wire.Refused({
      status: 400,
      code: Wire.codes.invalidParams,
      message: `Invalid params: tool "${tool}" cannot be called over HTTP in ${Wire.version}: ${mirroring.failure}`
    })
  }
  for (const { header: written, path } of mirroring.success) {
    const value = Results.argumentAt(args, path)
    if (value === undefined || value === null) continue
    const header = written.toLowerCase()
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
