// A procedure says how it changes the app — only by adding, or so that a second identical call changes
// nothing more — and a host reads it as MCP's tool annotations in both revisions: listed through the
// official SDK v2 client on one in-memory channel, as a 2025 and as a 2026 client. A procedure that
// only reads has neither to say, and a declaration saying so does not compile.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/client"
import { Effect, Schema } from "effect"
import { Client, Expose, Implementation, Surface } from "effect-surface"
import { McpConnection, McpFace } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { connect as connectV2 } from "./modern.ts"

const Notes = Surface.make({
  procedures: {
    notes: {
      add: { input: Schema.String, additive: true },
      rename: { input: Schema.String, idempotent: true },
      tag: { input: Schema.String, additive: true, idempotent: true },
      purge: {},
      count: { output: Schema.Int, mutates: false },
      // The expose map below makes it read-only: what it says of its changes no longer applies.
      archive: { additive: true, idempotent: true },
      // Built without the type's check (from data, say): a read-only procedure's claims are not listed.
      peek: { output: Schema.Int, mutates: false, additive: true, idempotent: true } as unknown as Surface.Procedure
    }
  }
})

const notes = Implementation.make(Notes, {
  procedures: {
    notes: {
      add: () => Effect.void,
      rename: () => Effect.void,
      tag: () => Effect.void,
      purge: () => Effect.void,
      count: () => Effect.succeed(0),
      archive: () => Effect.void,
      peek: () => Effect.void
    }
  }
})

const options: McpFace.Options = {
  core: {
    surface: Notes,
    expose: Expose.make(Notes, {
      procedures: {
        "notes.add": true,
        "notes.rename": true,
        "notes.tag": true,
        "notes.purge": true,
        "notes.count": true,
        "notes.archive": { mutates: false },
        "notes.peek": true
      }
    })
  },
  client: Effect.succeed({ core: Client.erase(Client.directDispatch(notes)), clients: {} })
}

const readOnly = { readOnlyHint: true, destructiveHint: false }
const expected: Record<string, Record<string, boolean>> = {
  notes_add: { readOnlyHint: false, destructiveHint: false },
  notes_rename: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  notes_tag: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  notes_purge: { readOnlyHint: false, destructiveHint: true },
  notes_count: readOnly,
  notes_archive: readOnly,
  notes_peek: readOnly
}

/** Each tool's annotations as a v2 SDK client in `mode` lists them, with the era it landed in. */
const listedAs = (face: McpFace.Face, mode: "legacy" | "auto") =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* McpConnection.connect(face, serverSide)
    const client = yield* connectV2(clientSide, mode)
    const { tools } = yield* Effect.promise(() => client.listTools())
    return {
      era: client.getProtocolEra(),
      annotations: Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))
    }
  })

describe("procedure annotations", () => {
  it.live("a procedure's additive and idempotent declarations reach a 2025 and a 2026 host as its tool's hints", () =>
    Effect.gen(function*() {
      const face = yield* McpFace.make(options)
      for (const [mode, era] of [["legacy", "legacy"], ["auto", "modern"]] as const) {
        const listed = yield* listedAs(face, mode)
        assert.strictEqual(listed.era, era)
        assert.deepStrictEqual(listed.annotations, expected, mode)
      }
    }))

  it.live("the example board's tasks_add is additive and board_focus idempotent, in both revisions", () =>
    Effect.gen(function*() {
      const face = yield* McpFace.make(yield* serverOptions)
      for (const mode of ["legacy", "auto"] as const) {
        const { annotations } = yield* listedAs(face, mode)
        assert.deepStrictEqual(annotations["tasks_add"], {
          title: "Add a task",
          readOnlyHint: false,
          destructiveHint: false
        }, mode)
        assert.deepStrictEqual(annotations["board_focus"], {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true
        }, mode)
        assert.deepStrictEqual(annotations["tasks_complete"], { readOnlyHint: false, destructiveHint: true }, mode)
        assert.deepStrictEqual(annotations["tasks_open"], readOnly, mode)
      }
    }))

  it("a procedure that only reads cannot declare itself additive or idempotent", () => {
    const changes: Surface.Procedure = { additive: true, idempotent: false }
    const changesByDefault: Surface.Procedure = { mutates: true, idempotent: true }
    // @ts-expect-error a read-only procedure has no destructive hint to give
    const additiveRead: Surface.Procedure = { mutates: false, additive: true }
    // @ts-expect-error nor an idempotent one
    const idempotentRead: Surface.Procedure = { mutates: false, idempotent: true }
    Surface.make({
      // @ts-expect-error nor where a surface is declared
      procedures: { notes: { count: { output: Schema.Int, mutates: false, idempotent: true } } }
    })
    const declared = (mutates: boolean): Surface.Procedure => ({ mutates })
    assert.deepStrictEqual([changes, changesByDefault, additiveRead, idempotentRead, declared(false)].length, 5)
  })
})
