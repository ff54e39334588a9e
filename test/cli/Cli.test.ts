// The command-line face: a bundle's verbs as argv, called through the engine an MCP host's
// tools/call reaches, with the answer on stdout and a refusal's sentence on stderr.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Progress, Surface, Tools } from "effect-surface"
import { Cli } from "effect-surface/cli"
import type { McpFace } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { call, connect, textOf } from "../mcp/harness.ts"
import { failedWith, runCli } from "./harness.ts"

const shop = Tools.make({
  description: "Order some tea or cake.",
  input: Tools.jsonSchema({
    type: "object",
    properties: {
      item: { type: "string", enum: ["tea", "cake"], description: "What to order" },
      qty: { type: "integer", minimum: 1, maximum: 10 },
      note: { type: "string", maxLength: 5 }
    },
    required: ["item", "qty"]
  }),
  mutates: true,
  handler: (input) => Effect.succeed(input)
})

const shopOptions: McpFace.Options = {
  core: { surface: Surface.make({}), expose: {} },
  tools: {
    place_order: shop,
    export_all: Tools.make({
      description: "Export everything, telling how far it got.",
      input: Schema.Struct({}),
      mutates: false,
      handler: () =>
        Progress.report({ progress: 1, total: 2, message: "exported the tasks" }).pipe(
          Effect.andThen(Progress.report({ progress: 2, total: 2 })),
          Effect.as("exported")
        )
    }),
    ping: Tools.make({
      description: "Answer pong.",
      input: Schema.Struct({}),
      mutates: false,
      handler: () => Effect.succeed("pong")
    })
  },
  client: Effect.succeed({ clients: {} })
}

describe("the command-line face", () => {
  it.live("a call from the shell reaches the procedure an MCP tools/call reaches, and prints only its answer on stdout", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions // one board: both doors dial the same clients
      const host = yield* connect(options)
      const byMcp = yield* call(host, "tasks_add", { title: "asked by an agent" })
      assert.deepStrictEqual(byMcp.structuredContent, { id: "t1" })
      const byShell = yield* runCli(
        Cli.run({ ...options, name: "board" }, ["tasks", "add", "--title", "typed in a shell"])
      )
      assert.isTrue(Exit.isSuccess(byShell.exit))
      assert.strictEqual(byShell.stdout, `{"id":"t2"}\n`)
      assert.strictEqual(byShell.stderr, "")
      const listed = yield* Effect.promise(() => host.client.readResource({ uri: "surface://collections/tasks" }))
      const text = listed.contents[0] !== undefined && "text" in listed.contents[0] ? listed.contents[0].text : ""
      assert.include(text, "asked by an agent")
      assert.include(text, "typed in a shell")
    }))

  it.live("a call's progress is shown on stderr as it runs, and stdout carries its answer alone", () =>
    Effect.gen(function*() {
      const ran = yield* runCli(Cli.run({ ...shopOptions, name: "shop" }, ["export-all"]))
      assert.isTrue(Exit.isSuccess(ran.exit))
      assert.strictEqual(ran.stdout, "exported\n")
      assert.strictEqual(ran.stderr, "… 1/2 exported the tasks\n… 2/2\n")
    }))

  it.live("an answer prints as a person reads it: a string as itself, a list or object as its JSON, nothing for nothing, a picture's line then its detail", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      const board = (argv: ReadonlyArray<string>) => runCli(Cli.run({ ...options, name: "board" }, argv))
      const pong = yield* runCli(Cli.run({ ...shopOptions, name: "shop" }, ["ping"]))
      assert.strictEqual(pong.stdout, "pong\n")
      assert.strictEqual((yield* board(["tasks", "add", "--title", "write docs"])).stdout, `{"id":"t1"}\n`)
      assert.strictEqual((yield* board(["tasks", "open"])).stdout, `["t1"]\n`)
      const focused = yield* board(["board", "focus", "--value", "docs"])
      assert.isTrue(Exit.isSuccess(focused.exit))
      assert.strictEqual(focused.stdout, "")
      const picture = yield* board(["board-progress"])
      assert.match(
        picture.stdout,
        /^\(image\/png image, \d+ base64 characters\)\n\{"done":0,"total":1,"width":200,"height":20\}\n$/
      )
    }))

  it.live("a refused call prints the sentence MCP answers with on stderr, and fails", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      const host = yield* connect(options)
      const overMcp = yield* call(host, "tasks_complete", { value: "nope" })
      assert.isTrue(overMcp.isError)
      const inShell = yield* runCli(Cli.run({ ...options, name: "board" }, ["tasks", "complete", "--value", "nope"]))
      assert.strictEqual(inShell.stdout, "")
      assert.strictEqual(inShell.stderr, `${textOf(overMcp)}\n`)
      assert.strictEqual(failedWith(inShell.exit), "CallFailed")
    }))

  it.live("values out of an enum or bounds pass the parser and are refused by the engine, in MCP's words", () =>
    Effect.gen(function*() {
      const host = yield* connect(shopOptions)
      const cases: ReadonlyArray<readonly [Record<string, unknown>, ReadonlyArray<string>]> = [
        [{ item: "tea", qty: 11 }, ["--item", "tea", "--qty", "11"]],
        [{ item: "coffee", qty: 1 }, ["--item", "coffee", "--qty", "1"]],
        [{ item: "cake", qty: 1, note: "too long" }, ["--item", "cake", "--qty", "1", "--note", "too long"]],
        [{ qty: 2 }, ["--qty", "2"]]
      ]
      for (const [args, argv] of cases) {
        const overMcp = yield* call(host, "place_order", args)
        assert.isTrue(overMcp.isError)
        const inShell = yield* runCli(Cli.run({ ...shopOptions, name: "shop" }, ["place-order", ...argv]))
        assert.strictEqual(inShell.stderr, `${textOf(overMcp)}\n`, argv.join(" "))
        assert.strictEqual(failedWith(inShell.exit), "CallFailed")
      }
      const good = yield* runCli(
        Cli.run({ ...shopOptions, name: "shop" }, ["place-order", "--item", "cake", "--qty", "3"])
      )
      assert.strictEqual(good.stdout, `{"item":"cake","qty":3}\n`)
    }))

  it.live("a mistake in the arguments is told in one sentence naming where --help is, not with the whole usage", () =>
    Effect.gen(function*() {
      const wrong = yield* runCli(Cli.run({ ...shopOptions, name: "shop" }, ["place-order", "--qty", "many"]))
      assert.isTrue(Exit.isFailure(wrong.exit))
      assert.strictEqual(wrong.stdout, "")
      assert.match(wrong.console, /^shop: Invalid value for flag --qty: "many"\. .* \(see shop place-order --help\)\n$/)
    }))

  it.live("--help lists each flag typed from the schema with its enum, bounds and requiredness", () =>
    Effect.gen(function*() {
      const help = yield* runCli(Cli.run({ ...shopOptions, name: "shop" }, ["place-order", "--help"]))
      assert.isTrue(Exit.isSuccess(help.exit))
      const line = (flag: string) => help.console.split("\n").find((l) => l.trimStart().startsWith(`--${flag} `)) ?? ""
      assert.match(line("item"), /--item tea\|cake\s+What to order \(required; one of: tea, cake\)/)
      assert.match(line("qty"), /--qty integer\s+\(required; an integer; at least 1; at most 10\)/)
      assert.match(line("note"), /--note string\s+\(at most 5 characters\)/)
      const top = yield* runCli(Cli.run({ ...shopOptions, name: "shop" }, ["--help"]))
      assert.include(top.console, "place-order")
      assert.include(top.console, "Order some tea or cake.")
    }))
})
