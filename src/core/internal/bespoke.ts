/**
 * A bespoke tool (a bundle root's, or a sibling's own) as a served tool record: its input compiled
 * once — an Effect Schema by the bridge, a raw JSON Schema by the reverse checker, refused here if
 * no call could pass it — and its description settled. Apart from `Resolver.ts` so the composition
 * reads as the rules it enforces; the two rules every tool record follows, generated ones too (a
 * blank description is a missing one, an absent input an empty object), live here with them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Surface from "../../surface/Surface.ts"
import type * as Bundle from "../Bundle.ts"
import type * as Json from "../Json.ts"
import * as ResolveError from "../ResolveError.ts"
import * as SchemaBridge from "../SchemaBridge.ts"
import type * as Tools from "../Tool.ts"
import { surfaceName } from "./lists.ts"

// A description only helps an agent if it says something; a blank one is treated as missing.
export const described = (given: string | undefined, fallback: () => string): string =>
  given !== undefined && given.trim() !== "" ? given : fallback()

/** A tool's input checker: the bridge's compilation of its schema, or of no input at all. */
export const compileInput = (schema: Surface.Shape | undefined): Bundle.Tool["input"] =>
  schema === undefined ? SchemaBridge.compile() : SchemaBridge.compile(schema)

const isJsonSchemaInput = (input: unknown): input is Tools.JsonSchemaInput =>
  typeof input === "object" && input !== null && "_tag" in input && input._tag === "JsonSchemaInput"

// A raw JSON Schema is compiled by the reverse checker, and refused here if no call could pass it.
const bespokeInput = (
  name: string,
  origin: Bundle.Origin,
  input: unknown
): Effect.Effect<Bundle.Tool["input"], ResolveError.InvalidToolSchema> =>
  isJsonSchemaInput(input)
    ? Effect.mapError(
      Effect.fromResult(
        SchemaBridge.compileJson(input.schema, { trustPatterns: input.trustPatterns, checkedBy: input.checkedBy })
      ),
      (e) => new ResolveError.InvalidToolSchema({ name, origin, reason: `${e.pointer}: ${e.reason}` })
    )
    // Otherwise the record's input is an Effect Schema (its type is erased in `AnyTool`).
    : Effect.succeed(compileInput(input as Surface.Shape | undefined))

/** The served record of a bespoke tool, its input compiled and its description settled. */
export const bespokeTool = (
  name: string,
  origin: Bundle.Origin,
  sibling: string | undefined,
  tool: {
    readonly title?: string
    readonly description: string
    readonly mutates: boolean
    readonly meta?: Json.JsonObject
    readonly annotations?: Json.JsonObject
    readonly input?: unknown
  },
  target: Bundle.Tool["target"]
): Effect.Effect<Bundle.Tool, ResolveError.InvalidToolSchema> =>
  Effect.map(bespokeInput(name, origin, tool.input), (input) => ({
    name,
    origin,
    sibling,
    title: tool.title,
    description: described(
      tool.description,
      () =>
        origin._tag === "RootTool" ? `Runs the bundle's root tool ${name}.` : `Runs a tool of ${surfaceName(sibling)}.`
    ),
    mutates: tool.mutates,
    meta: tool.meta,
    annotations: tool.annotations,
    input,
    target
  }))
