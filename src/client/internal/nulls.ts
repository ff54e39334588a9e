/**
 * `null` for an optional property, read as the property left out.
 *
 * A model calling tools in a strict mode sends every property it was shown, and `null` for each
 * optional one it has nothing for. A tool's schema that does not admit `null` there would refuse the
 * call ("expected a boolean, got null") though the model meant "absent", and a 2026 call would mirror
 * a header for it. So before arguments are checked, each `null` under a property the schema neither
 * requires nor lets be `null` is removed, at every depth the schema describes; a `null` the schema
 * admits, or one under a required property, is kept and judged by the schema as given.
 */

type Json = { readonly [key: string]: unknown }

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const MAX_DEPTH = 32

// Whether `schema` lets a value be `null`: no type said, a type list naming it, a branch admitting
// it, or an enum or const of it. A `$ref` is not followed: its target is taken not to.
const admitsNull = (schema: unknown, depth = 0): boolean => {
  if (schema === true) return true
  if (!isRecord(schema) || depth > MAX_DEPTH) return false
  if (schema["const"] === null) return true
  const listed = schema["enum"]
  if (Array.isArray(listed)) return listed.includes(null)
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key]
    if (Array.isArray(branches)) return branches.some((branch) => admitsNull(branch, depth + 1))
  }
  const type = schema["type"]
  if (typeof type === "string") return type === "null"
  if (Array.isArray(type)) return type.includes("null")
  return !("$ref" in schema) && !("const" in schema) && !("properties" in schema) && !("items" in schema)
}

const strip = (schema: unknown, value: unknown, depth: number): unknown => {
  if (depth > MAX_DEPTH || !isRecord(schema)) return value
  if (Array.isArray(value)) {
    const items = schema["items"]
    if (!isRecord(items)) return value
    let changed = false
    const out = value.map((item) => {
      const next = strip(items, item, depth + 1)
      if (next !== item) changed = true
      return next
    })
    return changed ? out : value
  }
  const properties = schema["properties"]
  if (!isRecord(value) || !isRecord(properties)) return value
  const required = Array.isArray(schema["required"]) ? schema["required"] : []
  let out: Record<string, unknown> | undefined
  for (const [key, given] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined
    if (property === undefined) continue
    if (given === null && !required.includes(key) && !admitsNull(property)) {
      out ??= { ...value }
      delete out[key]
      continue
    }
    const next = strip(property, given, depth + 1)
    if (next !== given) {
      out ??= { ...value }
      out[key] = next
    }
  }
  return out ?? value
}

/**
 * `args` with each `null` the schema does not admit, under a property it does not require, left
 * out; `args` itself (the same object) when there is none.
 *
 * @example
 * ```ts
 * const schema = { type: "object", properties: { all: { type: "boolean" } } }
 * withoutNulls(schema, { all: null }) // {}
 * ```
 */
export const withoutNulls = (schema: unknown, args: unknown): unknown => strip(schema, args, 0)
