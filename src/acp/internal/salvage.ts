/**
 * Turning an answer the SDK forgives into one its types describe.
 *
 * Where the SDK's parser meets a field it forgives (a `_meta` that is not an object, an exit code
 * that is not an integer, a plan entry that does not parse) it drops that field or item and reads
 * on. An answer passed on unchanged would put that value in front of code typed otherwise, so the
 * same drop is made here: the smallest failing part first, then its container, until the strict
 * check passes. Only an answer the lenient check already accepted is salvaged, so nothing the SDK
 * would refuse is repaired into a valid one.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { PathSegment } from "../../core/InputError.ts"
import type { JsonDecoder } from "../../core/JsonSchemaDecoder.ts"

// Each round drops at least one more level; deeper answers than this are not worth the walk.
const MAX_ROUNDS = 16

const keyOf = (path: ReadonlyArray<PathSegment>): string => JSON.stringify(path)

// A copy of `value` without what sits at `path`: a key deleted, an array item skipped.
const removeAt = (value: unknown, path: ReadonlyArray<PathSegment>): unknown => {
  const [head, ...rest] = path
  if (head === undefined || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    if (typeof head !== "number" || head >= value.length) return value
    if (rest.length === 0) return value.filter((_, i) => i !== head)
    return value.map((item, i) => (i === head ? removeAt(item, rest) : item))
  }
  const record = value as Readonly<Record<string, unknown>>
  const key = String(head)
  if (!Object.hasOwn(record, key)) return value
  const copy: Record<string, unknown> = { ...record }
  if (rest.length === 0) delete copy[key]
  else copy[key] = removeAt(record[key], rest)
  return copy
}

// Deepest first, and within one array the highest index first, so no removal moves another's target.
const order = (a: ReadonlyArray<PathSegment>, b: ReadonlyArray<PathSegment>): number => {
  if (a.length !== b.length) return b.length - a.length
  const [x, y] = [a[a.length - 1], b[b.length - 1]]
  return typeof x === "number" && typeof y === "number" ? y - x : 0
}

/**
 * `value` with what the SDK would drop dropped, so `strict` accepts it; `undefined` when no such
 * drop makes it pass (the caller then keeps the leniently accepted value as it came).
 */
export const salvage = (strict: JsonDecoder, value: unknown): Effect.Effect<unknown> =>
  Effect.gen(function*() {
    let current = value
    const removed = new Set<string>()
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const checked = yield* Effect.result(strict(current))
      if (Result.isSuccess(checked)) return current
      // A path already removed that is reported again (now as missing) was required: drop its container.
      const targets = checked.failure.issues.map(({ path }) => {
        let at = path
        while (at.length > 0 && removed.has(keyOf(at))) at = at.slice(0, -1)
        return at
      })
      if (targets.some((path) => path.length === 0)) return undefined
      for (const path of [...targets].sort(order)) {
        current = removeAt(current, path)
        // An item skipped leaves its index to the next item, which may well be valid: only keys are remembered.
        if (typeof path[path.length - 1] === "string") removed.add(keyOf(path))
      }
    }
    return undefined
  })
