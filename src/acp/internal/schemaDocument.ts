/**
 * Reading the SDK's shipped JSON Schema: where each method's answer is defined, and the lenient
 * copy of it that accepts what the SDK itself accepts.
 *
 * The schema marks the fields the SDK's own parser forgives (`x-deserialize-default-on-error`, all
 * `_meta` among them; `-on-null`; `-skip-invalid-items`). Checked strictly, those fields would
 * refuse answers the SDK takes, so the lenient copy widens exactly those nodes and nothing else.
 */
const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The `$defs` of a schema document, or nothing when it has none. */
export const definitions = (document: unknown): Readonly<Record<string, unknown>> | undefined =>
  isRecord(document) && isRecord(document["$defs"]) ? document["$defs"] : undefined

/**
 * The definition a method's answer (`Response`) or notification (`Notification`) is checked
 * against: the one the SDK marks `x-side: "client"` and `x-method: method`. `undefined` when the
 * installed schema has none.
 */
export const definitionFor = (
  defs: Readonly<Record<string, unknown>>,
  method: string,
  suffix: "Response" | "Notification"
): string | undefined => {
  for (const [name, node] of Object.entries(defs)) {
    if (name.endsWith(suffix) && isRecord(node) && node["x-side"] === "client" && node["x-method"] === method)
      return name
  }
  return undefined
}

/** Every client method the document defines an answer for. */
export const answeredMethods = (defs: Readonly<Record<string, unknown>>): ReadonlyArray<string> =>
  Object.entries(defs).flatMap(([name, node]) =>
    name.endsWith("Response") && isRecord(node) && node["x-side"] === "client" && typeof node["x-method"] === "string"
      ? [node["x-method"]] : []
  )

// Widen one node the way the SDK's parser forgives it; its children are widened first.
const loosenNode = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(loosenNode)
  if (!isRecord(node)) return node
  // The SDK substitutes a default for anything here that fails to parse: any value is taken.
  if (node["x-deserialize-default-on-error"] === true) return true
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) out[key] = loosenNode(value)
  // Items that fail to parse are skipped, not refused.
  if (node["x-deserialize-skip-invalid-items"] === true && out["items"] !== undefined) out["items"] = true
  // `null` reads as the field's empty value.
  if (node["x-deserialize-default-on-null"] === true) return { anyOf: [{ type: "null" }, out] }
  return out
}

/** The definitions with every node the SDK forgives widened to accept what it accepts. */
export const loosen = (defs: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const out: Record<string, unknown> = {}
  for (const [name, node] of Object.entries(defs)) out[name] = loosenNode(node)
  return out
}

/**
 * A self-contained document checking one definition: the definition itself at the root (one
 * reference fewer to follow per check), its references resolved within `defs` beside it.
 */
export const documentFor = (
  defs: Readonly<Record<string, unknown>>,
  name: string
): Readonly<Record<string, unknown>> => {
  const definition = defs[name]
  return isRecord(definition) ? { ...definition, $defs: defs } : { $defs: defs, $ref: `#/$defs/${name}` }
}
