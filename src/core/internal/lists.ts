/**
 * The three list answers a resolved bundle carries (`tools/list`, `resources/list`,
 * `resources/templates/list`), each entry built once per generation, and the claim a duplicate
 * address names. Apart from the composition so `Resolver.ts` reads as the rules it enforces.
 *
 * @since 0.1.0
 */
import type * as Bundle from "../Bundle.ts"
import { ID } from "../ItemUri.ts"
import type * as Json from "../Json.ts"
import { outputSchema } from "./outputSchema.ts"

const MIME = "application/json"

/** How a description names the surface a member came from. */
export const surfaceName = (sibling: string | undefined): string =>
  sibling === undefined ? "the core surface" : `the sibling "${sibling}" surface`

/**
 * What a tool's annotations say of its effects, as MCP defines the hints: a read-only tool says so
 * (its destructive hint false, as it always was); a tool that changes something is destructive
 * unless its procedure declares itself additive, and idempotent only where it declares so.
 */
const effectHints = (tool: Bundle.Tool): Json.JsonObject => {
  if (!tool.mutates) return { readOnlyHint: true, destructiveHint: false }
  // An expose map may make a read-only procedure mutating: it then declares nothing of how.
  const declared = tool.target._tag === "Procedure" && tool.target.procedure.mutates !== false
    ? tool.target.procedure
    : {}
  return {
    readOnlyHint: false,
    destructiveHint: declared.additive !== true,
    ...(declared.idempotent === true ? { idempotentHint: true } : {})
  }
}

/** A tool's `tools/list` entry. */
export const advertiseTool = (tool: Bundle.Tool): Json.JsonObject => {
  const title = tool.title === undefined ? {} : { title: tool.title }
  return {
    name: tool.name,
    ...title,
    description: tool.description,
    inputSchema: tool.input.jsonSchema,
    // A procedure declares its output (and failures), so its every structured answer has a known
    // shape; a bespoke tool declares none, and its refusals' detail could not be held to one.
    ...(tool.target._tag === "Procedure"
      ? { outputSchema: outputSchema(tool.target.procedure.output, tool.target.procedure.error) }
      : {}),
    annotations: tool.annotations ?? { ...title, ...effectHints(tool) },
    ...(tool.meta === undefined ? {} : { _meta: tool.meta })
  }
}

const resourceDescription = (resource: Bundle.Resource): string => {
  const where = surfaceName(resource.sibling)
  switch (resource.kind) {
    case "cell":
      return `The current value of cell "${resource.key}" on ${where}.`
    case "collection":
      return `Every item of collection "${resource.key}" on ${where}; read one item at ${resource.uri}/${ID}.`
    case "stream":
      return `The log of stream "${resource.key}" on ${where}: the backlog first, then each new entry.`
    case "event":
      return `Pulses of event "${resource.key}" on ${where}: no snapshot, only what happens after subscribing.`
  }
}

/** A resource's `resources/list` entry. */
export const advertiseResource = (resource: Bundle.Resource): Json.JsonObject => ({
  uri: resource.uri,
  name: resource.name,
  mimeType: MIME,
  description: resourceDescription(resource)
})

/** A template's `resources/templates/list` entry. */
export const advertiseTemplate = (template: Bundle.Template): Json.JsonObject => ({
  uriTemplate: template.uriTemplate,
  name: template.name,
  mimeType: MIME
})

/** Who claims an address, as a duplicate-address refusal names it. */
export const claimOf = (r: Bundle.Resource | Bundle.Template) => ({
  sibling: r.sibling,
  kind: "kind" in r ? r.kind : "collection" as const,
  key: r.key
})
