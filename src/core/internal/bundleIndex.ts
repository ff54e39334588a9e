/**
 * The indices of a composed bundle (tool by name, resource by URI, item template by collection),
 * built in one pass over every candidate so a clash is refused naming both claimants. Apart from
 * `Resolver.ts` so the composition reads as the rules it enforces.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Bundle from "../Bundle.ts"
import * as ResolveError from "../ResolveError.ts"
import { claimOf } from "./lists.ts"

/** The index key of a collection's item template: `"<sibling>/<key>"`, or `"<key>"` on the core. */
export const collectionKey = (sibling: string | undefined, key: string): string =>
  sibling === undefined ? key : `${sibling}/${key}`

/** The three indices of a bundle's tables. */
export interface Indices {
  readonly toolByName: Map<string, Bundle.Tool>
  readonly byUri: Map<string, Bundle.Resource>
  readonly templateByCollection: Map<string, Bundle.Template>
}

/** Index the tables, refusing a bad tool name, a name claimed twice and an address claimed twice. */
export const indexTables = (
  tools: ReadonlyArray<Bundle.Tool>,
  resources: ReadonlyArray<Bundle.Resource>,
  templates: ReadonlyArray<Bundle.Template>
): Effect.Effect<Indices, ResolveError.ResolveError> =>
  Effect.gen(function*() {
    // One pass over every candidate, each tagged by origin, so a clash names both claimants.
    const toolByName = new Map<string, Bundle.Tool>()
    for (const tool of tools) {
      if (!ResolveError.TOOL_NAME.test(tool.name)) {
        return yield* new ResolveError.InvalidToolName({ name: tool.name, origin: tool.origin })
      }
      const first = toolByName.get(tool.name)
      if (first !== undefined) {
        return yield* new ResolveError.DuplicateToolName({ name: tool.name, first: first.origin, second: tool.origin })
      }
      toolByName.set(tool.name, tool)
    }
    const byUri = new Map<string, Bundle.Resource>()
    for (const resource of resources) {
      const first = byUri.get(resource.uri)
      if (first !== undefined) {
        return yield* new ResolveError.DuplicateResourceUri({
          uri: resource.uri,
          first: claimOf(first),
          second: claimOf(resource)
        })
      }
      byUri.set(resource.uri, resource)
    }
    const templateByCollection = new Map<string, Bundle.Template>()
    for (const template of templates) {
      const index = collectionKey(template.sibling, template.key)
      const first = templateByCollection.get(index)
      if (first !== undefined) {
        return yield* new ResolveError.DuplicateResourceUri({
          uri: template.uriTemplate,
          first: claimOf(first),
          second: claimOf(template)
        })
      }
      templateByCollection.set(index, template)
    }
    return { toolByName, byUri, templateByCollection }
  })
