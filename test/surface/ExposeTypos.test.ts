// An expose map typed in plain JavaScript, or read from a config file, is checked only when the server
// starts. A key that names nothing is nearly always a slip of a letter or two, so its refusal names
// the declared member it was most likely meant to be, and says where the map sits in the options in
// the words they were written in (`core.expose`, `surfaces.t.expose`), never the framework's own.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Expose, Resolver, Surface } from "effect-surface"

const Notes = Surface.make({
  cells: { focus: Surface.cell(Schema.String, "") },
  collections: { notes: Surface.collection(Schema.String, Schema.Struct({ text: Schema.String })) },
  streams: { journal: Surface.stream(Schema.String) },
  procedures: {
    notes: { add: { input: Schema.Struct({ text: Schema.String }) }, archive: {} },
    tags: { rename: { input: Schema.Struct({ from: Schema.String, to: Schema.String }) } }
  }
})

const refusal = (expose: unknown, sibling?: string) =>
  Effect.map(
    Effect.flip(
      Resolver.resolveBundle(
        sibling === undefined
          ? { core: { surface: Notes, expose: expose as Expose.AnyExposeMap } }
          : { surfaces: { [sibling]: { surface: Notes, expose: expose as Expose.AnyExposeMap } } }
      )
    ),
    (error) => error.message
  )

describe("a mistyped expose key", () => {
  it.effect("is refused naming where the map sits and the member it was meant to be", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [unknown, string | undefined, string]> = [
        [
          { procedures: { "notes.ad": true } },
          undefined,
          `the expose map for your surface (core.expose) names procedure "notes.ad", which its surface does not declare; did you mean "notes.add"?`
        ],
        [
          { procedures: { "note.archive": true } },
          undefined,
          `the expose map for your surface (core.expose) names procedure "note.archive", which its surface does not declare; did you mean "notes.archive"?`
        ],
        [
          { cells: { fcous: true } },
          "work",
          `the expose map for sibling "work" (surfaces.work.expose) names cell "fcous", which its surface does not declare; did you mean "focus"?`
        ],
        [
          { streams: { Journal: true } },
          "my-notes",
          `the expose map for sibling "my-notes" (surfaces["my-notes"].expose) names stream "Journal", which its surface does not declare; did you mean "journal"?`
        ],
        [
          { cells: { notes: true } },
          undefined,
          `the expose map for your surface (core.expose) names cell "notes", which its surface does not declare; it is a collection: name it under collections`
        ],
        [
          { procedures: { "billing.refund": true } },
          undefined,
          `the expose map for your surface (core.expose) names procedure "billing.refund", which its surface does not declare`
        ]
      ]
      for (const [expose, sibling, message] of table) {
        assert.strictEqual(yield* refusal(expose, sibling), message)
      }
    }))

  const names = {
    cells: ["focus"],
    collections: ["notes"],
    streams: ["journal"],
    procedures: ["notes.add", "notes.archive", "tags.rename"]
  } as const
  const declared = new Set<string>(Object.values(names).flat())

  const edit = (name: string, kind: "delete" | "swap" | "replace" | "insert", at: number, letter: string) => {
    const i = at % name.length
    switch (kind) {
      case "delete":
        return name.slice(0, i) + name.slice(i + 1)
      case "swap":
        return i + 1 < name.length ? name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2) : name
      case "replace":
        return name.slice(0, i) + letter + name.slice(i + 1)
      case "insert":
        return name.slice(0, i) + letter + name.slice(i)
    }
  }

  it.prop(
    "any one-letter slip of a declared name is answered with that name",
    {
      group: Schema.Literals(["cells", "collections", "streams", "procedures"]),
      pick: Schema.Literals([0, 1, 2]),
      kind: Schema.Literals(["delete", "swap", "replace", "insert"]),
      at: Schema.Literals([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
      letter: Schema.Literals(["a", "e", "s", "t", ".", "_", "X"])
    },
    ({ at, group, kind, letter, pick }) =>
      Effect.gen(function*() {
        const candidates: ReadonlyArray<string> = names[group]
        const name = candidates[pick % candidates.length] ?? ""
        const typo = edit(name, kind, at, letter)
        if (declared.has(typo)) return // not a slip: it names a member
        const error = yield* Effect.flip(Expose.check(Notes, { [group]: { [typo]: true } }, "mcp"))
        assert.strictEqual(error._tag, "UnknownExposeKey")
        assert.isTrue(
          error.message.endsWith(`; did you mean "${name}"?`),
          `${JSON.stringify(typo)} in ${group}: ${error.message}`
        )
      }),
    { arbitrary: { runs: 300 } }
  )
})
