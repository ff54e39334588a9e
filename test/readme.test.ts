import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type ChildProcess, spawn } from "node:child_process"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { program } from "../examples/quickstart.ts"
import { blockAfter, page, pages, readme } from "./readmeBlocks.ts"
import * as Instances from "./mcp/cluster/instances.ts"
import { post, rawSession, text } from "./mcp/httpRaw.ts"
import * as RedisServer from "./mcp/redisServer.ts"

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8")
const root = fileURLToPath(new URL("../", import.meta.url))

/** The URL an HTTP example prints once it is listening. */
const servingUrl = (child: ChildProcess) =>
  new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const found = /MCP over HTTP at (http:\/\/\S+)/.exec(out)
      if (found?.[1] !== undefined) resolve(found[1])
    })
    child.once("exit", (code) => reject(new Error(`the example exited (${code}) before serving: ${out}`)))
  })

describe("README and docs/", () => {
  it("stays a short front door: under 300 lines", () => {
    assert.isBelow(readme().split("\n").length, 300)
  })

  it("links every page under docs/, and every link between the README and the pages reaches a file", () => {
    const linked = Array.from(readme().matchAll(/\]\(docs\/([\w-]+)\.md\)/g), (m) => m[1])
    assert.deepStrictEqual([...new Set(linked)].sort((a, b) => (a ?? "").localeCompare(b ?? "")), [...pages()])
    for (const name of pages()) {
      for (const [, target] of page(name).matchAll(/\]\(([\w./-]+?)(?:#[\w-]*)?\)/g)) {
        if (target === undefined || /^\w+:/.test(target)) continue
        assert.isTrue(existsSync(new URL(`../docs/${target}`, import.meta.url)), `docs/${name}.md links ${target}`)
      }
    }
  })

  it("shows exactly the examples the type check compiles and the tests run: the quickstart and one snippet per mode", () => {
    for (const file of ["quickstart.ts", "serve/stdio.ts", "toolset/effect.ts", "acp/quickstart.ts"]) {
      assert.strictEqual(blockAfter(readme(), `(\`examples/${file}\`):`), read(`../examples/${file}`), file)
    }
  })

  it("docs/authorization.md shows exactly the authorization example that the type check reads", () => {
    assert.strictEqual(
      blockAfter(page("authorization"), "(`examples/auth/server.ts`):"),
      read("../examples/auth/server.ts")
    )
  })

  it("docs/authorization.md shows exactly the procedure reading its caller that the authorization tests run", () => {
    assert.strictEqual(
      blockAfter(page("authorization"), "(`examples/auth/cards.ts`):"),
      read("../examples/auth/cards.ts")
    )
  })

  it("a page's ```ts block that names an example file is that file", () => {
    for (const name of pages()) {
      for (const match of page(name).matchAll(/\(`(examples\/[\w/.-]+\.ts)`\)[^\n]*:\n\n```ts\n([\s\S]*?)```/g)) {
        assert.strictEqual(match[2], read(`../${match[1]}`), `docs/${name}.md: ${match[1]}`)
      }
    }
  })

  it.effect("the quickstart example runs and answers what its comment says", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* program, 2)
    }))

  it("docs/serving.md shows exactly the stdio serve examples, Effect and Promise, that the type check and the test below run", () => {
    const serving = page("serving")
    assert.strictEqual(
      blockAfter(serving, "With the Effect API, by Layer composition (`examples/serve/stdio.ts`):"),
      read("../examples/serve/stdio.ts")
    )
    assert.strictEqual(
      blockAfter(serving, "With the Promise API (`examples/serve/stdio-promise.ts`):"),
      read("../examples/serve/stdio-promise.ts")
    )
  })

  it("docs/serving.md shows exactly the HTTP serve examples, Effect and Promise, that the type check and the test below run", () => {
    const serving = page("serving")
    assert.strictEqual(
      blockAfter(serving, "Over Streamable HTTP, with the Effect API (`examples/serve/http.ts`):"),
      read("../examples/serve/http.ts")
    )
    assert.strictEqual(
      blockAfter(serving, "With the Promise API (`examples/serve/http-promise.ts`):"),
      read("../examples/serve/http-promise.ts")
    )
  })

  for (const example of ["examples/serve/http.ts", "examples/serve/http-promise.ts"]) {
    it.live(
      `${example} serves the counter over Streamable HTTP to an SDK client that lists and calls it`,
      () =>
        Effect.gen(function*() {
          const child = spawn(process.execPath, ["--conditions=effect-surface-source", example], {
            cwd: root,
            env: { ...process.env, PORT: "0" },
            stdio: ["ignore", "pipe", "pipe"]
          })
          yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGTERM")))
          const url = yield* Effect.promise(() => servingUrl(child))
          const client = new Client({ name: "readme", version: "1.0.0" })
          yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url))))
          const tools = (yield* Effect.promise(() => client.listTools())).tools.map((tool) => tool.name)
          assert.deepStrictEqual(tools, ["counter_add"])
          const added = yield* Effect.promise(() => client.callTool({ name: "counter_add", arguments: { value: 2 } }))
          assert.deepStrictEqual(added.structuredContent, { value: 2 })
          yield* Effect.promise(() => client.close())
        }),
      30_000
    )
  }

  it("docs/scale-out.md shows exactly the example of instances sharing their sessions in Redis that the test below runs", () => {
    assert.strictEqual(
      blockAfter(page("scale-out"), "(`examples/serve/http-redis.ts`):"),
      read("../examples/serve/http-redis.ts")
    )
  })

  it.live(
    "examples/serve/http-redis.ts run twice on one Redis: a session opened at one instance is served by the other",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.start
        const [a, b] = yield* Effect.forEach([0, 1], () =>
          Instances.start({ script: "examples/serve/http-redis.ts", redisUrl: redis.url, ready: /counter at (\S+)/ }), {
          concurrency: 2
        })
        const session = yield* rawSession(a!.url)
        const added = yield* Effect.flatMap(
          post(b!.url, {
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "counter_add", arguments: { value: 2 } }
          }, session),
          text
        )
        assert.include(added, "\"structuredContent\":{\"value\":2}")
      }),
    60_000
  )

  for (const example of ["examples/serve/stdio.ts", "examples/serve/stdio-promise.ts"]) {
    it.live(
      `${example} serves the counter over stdio to an SDK client that lists and calls it`,
      () =>
        Effect.gen(function*() {
          const transport = new StdioClientTransport({
            command: process.execPath,
            args: ["--conditions=effect-surface-source", example],
            cwd: root,
            stderr: "pipe"
          })
          const client = new Client({ name: "readme", version: "1.0.0" })
          yield* Effect.promise(() => client.connect(transport))
          const tools = (yield* Effect.promise(() => client.listTools())).tools.map((tool) => tool.name)
          assert.deepStrictEqual(tools, ["counter_add"])
          const added = yield* Effect.promise(() => client.callTool({ name: "counter_add", arguments: { value: 2 } }))
          assert.deepStrictEqual(added.structuredContent, { value: 2 })
          yield* Effect.promise(() => client.close())
        }),
      30_000
    )
  }

  it.live(
    "the quickstart run as a file says what it did and where to go next; imported, it prints nothing",
    () =>
      Effect.gen(function*() {
        const printed = yield* Effect.callback<string>((resume) => {
          const child = spawn(process.execPath, ["--conditions=effect-surface-source", "examples/quickstart.ts"], {
            cwd: root
          })
          let out = ""
          child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()))
          child.once("exit", () => resume(Effect.succeed(out)))
        })
        assert.strictEqual(
          printed,
          "counter.add(2) through the in-process client: count is now 2\n" +
            "Nothing is served yet: examples/serve/stdio.ts serves this counter to an agent over stdio.\n"
        )
      }),
    { timeout: 60_000 }
  )

  it.live("each HTTP example says where it serves once, in the library's own line", () =>
    Effect.gen(function*() {
      for (const example of ["examples/serve/http.ts", "examples/serve/http-promise.ts"]) {
        const child = spawn(process.execPath, ["--conditions=effect-surface-source", example], {
          cwd: root,
          env: { ...process.env, PORT: "0", NO_COLOR: "1" }
        })
        let out = ""
        child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()))
        child.stderr?.on("data", (chunk: Buffer) => (out += chunk.toString()))
        const url = yield* Effect.promise(() => servingUrl(child))
        // Whatever the example would print after the library's line has been written by now.
        yield* Effect.sleep("500 millis")
        child.kill("SIGTERM")
        assert.strictEqual(out.split(url).length - 1, 1, `${example} printed:\n${out}`)
      }
    }), { timeout: 60_000 })
})
