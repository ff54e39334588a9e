import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Schema } from "effect"
import * as Tools from "../src/tools.ts"
import { fromSdk, modulesLoadedBy } from "./moduleLoads.ts"

class Jobs extends Context.Service<Jobs, { readonly run: (cmd: string) => Effect.Effect<number> }>()("test/Jobs") {}

interface Client {
  readonly exitCodeOf: (cmd: string) => number
}

const client: Client = { exitCodeOf: (cmd) => cmd.length }

const spawn = Tools.make({
  description: "Run a command and wait for it",
  title: "Spawn",
  input: Schema.Struct({ cmd: Schema.String }),
  mutates: true,
  // `cmd` is typed from the schema and `client` from this annotation: no casts anywhere.
  handler: ({ cmd }, c: Client) =>
    cmd === "" ? Effect.fail(new Tools.ToolFailure({ message: "empty command", detail: { cmd } }))
      : Effect.succeed(c.exitCodeOf(cmd))
})

const ping = Tools.make({
  description: "Answer pong",
  mutates: false,
  handler: () => Effect.succeed("pong" as const)
})

const viaService = Tools.make({
  description: "Run through a service",
  input: Schema.String,
  mutates: true,
  handler: (cmd) =>
    Effect.gen(function*() {
      const jobs = yield* Jobs
      return yield* jobs.run(cmd)
    })
})

const screenshot = Tools.make({
  description: "The screen as a PNG",
  mutates: false,
  handler: () => Effect.succeed({ png: "iVBORw0KGgo=", width: 80 }),
  render: (shot) =>
    Tools.okImage({ data: shot.png, mimeType: "image/png" }, { mimeType: "image/png", width: shot.width })
})

describe("tools", () => {
  it("importing src/tools.ts loads no module of the MCP SDK, directly or transitively", () => {
    const { status, stderr, urls } = modulesLoadedBy(new URL("../src/tools.ts", import.meta.url).href)
    assert.strictEqual(status, 0, stderr)
    // The hook saw the whole graph (our modules and effect's), so an empty match means something.
    assert.isTrue(urls.some((url) => url.endsWith("/src/core/ToolFailure.ts")))
    assert.isTrue(urls.some((url) => url.includes("/node_modules/effect/")))
    assert.deepStrictEqual(fromSdk(urls), [])
  })

  it("the import harness does report the MCP SDK when a module loads it", () => {
    const { urls } = modulesLoadedBy("@modelcontextprotocol/sdk/types.js")
    assert.isNotEmpty(fromSdk(urls))
  })

  it("make infers the handler's input from the schema and the client from its annotation", () => {
    const input: Tools.InputOf<NonNullable<typeof spawn.input>> = { cmd: "ls" }
    const out: Effect.Effect<number, Tools.ToolFailure<{ readonly cmd: string }>> = spawn.handler(input, client)
    assert.strictEqual(Effect.runSync(out), 2)
    assert.isTrue(spawn.mutates)
    assert.strictEqual(spawn.title, "Spawn")
  })

  it("a tool declared without input has no input schema and a void input", () => {
    const none: Tools.InputOf<typeof ping.input> = undefined
    assert.isUndefined(ping.input)
    assert.strictEqual(Effect.runSync(ping.handler(none, undefined)), "pong")
  })

  it("Services names the handler's requirements", () => {
    const needsJobs: [Tools.Services<typeof viaService>] extends [Jobs] ? true : false = true
    const needsNothing: [Tools.Services<typeof ping>] extends [never] ? true : false = true
    assert.isTrue(needsJobs && needsNothing)
  })

  it.effect("call frames a success, a refusal with its detail, and a render override", () =>
    Effect.gen(function*() {
      const ok = yield* Tools.call(spawn, { cmd: "make" }, client)
      assert.deepStrictEqual(ok, { content: [{ type: "text", text: `{"value":4}` }], structuredContent: { value: 4 } })
      const refused = yield* Tools.call(spawn, { cmd: "" }, client)
      assert.deepStrictEqual(refused, {
        content: [{ type: "text", text: "effect-surface: empty command" }],
        structuredContent: { cmd: "" },
        isError: true
      })
      const picture = yield* Tools.call(screenshot, undefined, undefined)
      assert.deepStrictEqual(picture.content, [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "text", text: JSON.stringify({ mimeType: "image/png", width: 80 }) }
      ])
      const served = yield* Tools.call(viaService, "ls", undefined).pipe(
        Effect.provideService(Jobs, { run: (cmd) => Effect.succeed(cmd.length) })
      )
      assert.deepStrictEqual(served.structuredContent, { value: 2 })
    }))

  it("a table of mixed tools fits one AnyTool record", () => {
    const table: Record<string, Tools.AnyTool<Client>> = { spawn, ping, screenshot }
    assert.deepStrictEqual(Object.keys(table), ["spawn", "ping", "screenshot"])
  })
})
