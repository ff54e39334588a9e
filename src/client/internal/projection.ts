/**
 * The map a toolset shows, projected from what its servers' links hold, and when it is first shown.
 *
 * Every server's listing is merged (names made legal and unique), filtered by the configuration's
 * `tools`, and disclosed (schemas held back behind `mcp__describe_tool` when asked); each entry keeps
 * the link that serves it, so a call finds its server by the name the model used. A rebuilt toolset
 * shows the stored map at once and projects again once every server's background listing has ended.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as CallResult from "../CallResult.ts"
import * as Catalog from "../Catalog.ts"
import type * as Config from "../Config.ts"
import * as Diagnostic from "../Diagnostic.ts"
import * as Disclosure from "../Disclosure.ts"
import { type CallError, InvalidArguments, UnknownTool } from "../Errors.ts"
import * as Names from "../Names.ts"
import type * as Invoke from "./invoke.ts"
import type * as Link from "./link.ts"

/** A tool in the map, with the link to the server that serves it. */
export interface Located extends Catalog.Entry {
  readonly link: Link.Link
}

/** The map as the toolset holds it: what it shows, each shown tool's prepared call, and the describe tool. */
export interface State {
  readonly tools: ReadonlyMap<string, Catalog.Tool>
  readonly calls: ReadonlyMap<string, Invoke.Run>
  /** `mcp__describe_tool`, while some server's schemas are held back: its name, and the full tools. */
  readonly describe: { readonly name: string; readonly full: ReadonlyMap<string, Catalog.Tool> } | undefined
}

/** The map before any server is listed. */
export const empty: State = { tools: new Map(), calls: new Map(), describe: undefined }

/**
 * What the map is after a listing: merged, filtered, disclosed — with the describe tool when some
 * server's schemas are held back, and each shown tool's call prepared under its final name
 * (`prepare`). Answers the filter entries that named nothing.
 */
export const project = <S>(
  perServer: ReadonlyArray<{ readonly key: string; readonly entries: ReadonlyArray<Located> }>,
  options: Config.Options<S>,
  prepare: (name: string, found: Located) => Invoke.Run
) => {
  const merged = Catalog.merge(perServer)
  const { kept, unmatched } = Catalog.filter(merged.map, options.tools)
  const disclosed = Disclosure.disclose(kept, options.disclosure)
  const diagnostics = [...merged.diagnostics, ...disclosed.diagnostics]
  const tools = new Map([...disclosed.shown].map(([name, found]) => [name, found.tool]))
  let describe: State["describe"] = undefined
  if (disclosed.describe) {
    const name = tools.has(Disclosure.DESCRIBE_TOOL)
      ? `${Disclosure.DESCRIBE_TOOL}_${Names.hash(Disclosure.DESCRIBE_TOOL)}` : Disclosure.DESCRIBE_TOOL
    if (name !== Disclosure.DESCRIBE_TOOL) diagnostics.push(Diagnostic.toolNameCollision("mcp", "describe_tool", name))
    const full = new Map<string, Catalog.Tool>()
    for (const key of disclosed.shown.keys()) {
      const found = kept.get(key)
      if (found !== undefined) full.set(key, found.tool)
    }
    describe = { name, full }
    tools.set(name, { name, server: "mcp", tool: "describe_tool", ...Disclosure.describeTool })
  }
  const calls = new Map([...disclosed.shown].map(([name, found]) => [name, prepare(name, found)]))
  const state: State = { calls, tools, describe }
  return { state, diagnostics, unmatched }
}

/** `mcp__describe_tool`: the full definition of a tool the map holds. Reads only the map. */
export const describeCall = (
  describe: NonNullable<State["describe"]>,
  args: unknown
): Effect.Effect<CallResult.Result, CallError> => {
  const name = Disclosure.describedName(args)
  if (name === undefined)
    return Effect.fail(
      new InvalidArguments({ name: describe.name, reason: "it takes { \"name\": \"<a tool's name>\" }" })
    )
  const tool = describe.full.get(name)
  return tool === undefined ? Effect.fail(new UnknownTool({ name })) : Effect.succeed(Disclosure.describe(tool))
}

/**
 * The first map, published from what the links hold (listed, or stored), and `reconciled`: settled
 * at once for a toolset made by connecting; for a rebuilt one, once every server's background
 * listing has ended and the map is published again. Either way the tools filter is judged against
 * the servers' own listings, not what a store happened to hold.
 */
export const firstPublish = (
  links: ReadonlyArray<Link.Link>,
  rebuilt: boolean,
  republish: Effect.Effect<ReadonlyArray<string>>,
  reportUnmatched: (entries: ReadonlyArray<string>) => Effect.Effect<void>
): Effect.Effect<Deferred.Deferred<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const reconciled = yield* Deferred.make<void>()
    const unmatched = yield* republish
    if (!rebuilt) {
      yield* reportUnmatched(unmatched)
      yield* Deferred.succeed(reconciled, undefined)
      return reconciled
    }
    yield* Effect.forkScoped(
      Effect.forEach(links, (link) => link.reconciled, { concurrency: "unbounded", discard: true }).pipe(
        Effect.andThen(republish),
        Effect.flatMap(reportUnmatched),
        Effect.ensuring(Deferred.succeed(reconciled, undefined))
      )
    )
    return reconciled
  })
