/**
 * A procedure's declared failure as the refusal it is: a procedure that declares `error` promises
 * its caller those failures as typed values, so one of them reaches a face as a `ToolFailure` —
 * its sentence for the model (the error's own message, or its tag and fields), its declared JSON
 * form (its `_tag` and fields) as the structured detail — as a bespoke tool's refusal does. A
 * failure the declaration does not describe is left as it is, framed message-only as before.
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Surface from "../../surface/Surface.ts"
import * as ToolFailure from "../ToolFailure.ts"

type Refusal = (error: unknown) => unknown

// Built once per declared schema, on its first failure.
const built = new WeakMap<Surface.Shape, Refusal>()

const refusalFor = (schema: Surface.Shape): Refusal => {
  const declared = Schema.is(schema)
  const encode = Schema.encodeUnknownResult(Schema.toCodecJson(schema))
  return (error) =>
    declared(error)
      ? Result.match(encode(error), {
        onFailure: () => error,
        onSuccess: (detail) => ToolFailure.make(ToolFailure.messageOf(error), detail)
      })
      : error
}

/** What a procedure declaring `schema` (or nothing) fails with, as its caller is to read it. */
export const refusalOf = (schema: Surface.Shape | undefined): Refusal => {
  if (schema === undefined) return (error) => error
  let refusal = built.get(schema)
  if (refusal === undefined) {
    refusal = refusalFor(schema)
    built.set(schema, refusal)
  }
  return refusal
}
