/**
 * The addresses of collection items: `surface://collections[/<sibling>]/<key>/<id>`.
 *
 * Every face reads and writes item addresses the same way — the id percent-encoded into the last
 * segment, so an id containing `/` stays one segment — and a URI is matched against a resolved
 * bundle by its index, never by guessing which segments are a sibling.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import type * as Bundle from "./Bundle.ts"

const COLLECTIONS = "surface://collections/"

/**
 * The placeholder that ends every item template.
 *
 * @example
 * ```ts
 * import { ItemUri } from "effect-surface"
 * ItemUri.ID // "{id}"
 * ```
 *
 * @since 0.1.0
 */
export const ID = "{id}"

/**
 * The address of one item of a collection: its template with the id percent-encoded into the
 * `{id}` segment, so an id containing `/` stays one segment.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { ItemUri } from "effect-surface"
 *
 * declare const template: Bundle.Template // surface://collections/t/todos/{id}
 * ItemUri.itemUri(template, "a/b") // "surface://collections/t/todos/a%2Fb"
 * ```
 *
 * @since 0.1.0
 */
export const itemUri = (template: Bundle.Template, id: string): string =>
  `${template.uriTemplate.slice(0, -ID.length)}${encodeURIComponent(id)}`

/**
 * The collection path and raw id segment of an item-shaped URI (`surface://collections/<path>/<id>`),
 * whether or not anything serves it. The id is the last segment, because ids are percent-encoded.
 *
 * @example
 * ```ts
 * import { ItemUri } from "effect-surface"
 * ItemUri.splitItemUri("surface://collections/t/todos/42") // { collection: "t/todos", id: "42" }
 * ```
 *
 * @since 0.1.0
 */
export const splitItemUri = (uri: string): { readonly collection: string; readonly id: string } | undefined => {
  if (!uri.startsWith(COLLECTIONS)) return undefined
  const rest = uri.slice(COLLECTIONS.length)
  const at = rest.lastIndexOf("/")
  if (at <= 0 || at === rest.length - 1) return undefined
  return { collection: rest.slice(0, at), id: rest.slice(at + 1) }
}

/**
 * Read an item URI against a resolved bundle: the collection's template and the percent-decoded
 * id, or `undefined` when no exposed collection owns it or the id is not valid percent-encoding.
 * Unambiguous because a sibling may not share a key with a core collection (see
 * `SiblingShadowsCollection`); a face still checks `byUri` first, for the collection itself.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { ItemUri } from "effect-surface"
 *
 * declare const resolved: Bundle.Resolved
 * ItemUri.parseItemUri(resolved, "surface://collections/t/todos/a%2Fb") // { template, id: "a/b" }
 * ```
 *
 * @since 0.1.0
 */
export const parseItemUri = (
  resolved: Bundle.Resolved,
  uri: string
): { readonly template: Bundle.Template; readonly id: string } | undefined => {
  const split = splitItemUri(uri)
  const template = split && resolved.templateByCollection.get(split.collection)
  if (split === undefined || template === undefined) return undefined
  const id = Result.try(() => decodeURIComponent(split.id))
  return Result.isSuccess(id) ? { template, id: id.success } : undefined
}
