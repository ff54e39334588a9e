// LangChain's MCP adapters (`@langchain/mcp-adapters`, `MultiServerMCPClient`) drive the example
// board as a user would: over the README's stdio command and over `npm start`'s HTTP endpoint.
// LangChain speaks 2025-11-25 only, checks a call's arguments itself (the server never sees a bad
// one), and has no prompt API of its own: prompts are read through `getClient(name)`, the SDK client
// it holds, as its documentation says.
import { MultiServerMCPClient } from "@langchain/mcp-adapters"
import { assert, describe, it } from "@effect/vitest"
import { boardProcesses, overHttp, stdio, stillRunning } from "./fixtures/clients-board.ts"

type Connection = ConstructorParameters<typeof MultiServerMCPClient>[0]

// What LangChain hands the model: the text block (a single one as itself), or every block.
interface Block {
  readonly type: string
  readonly text?: string
  readonly image_url?: { readonly url: string }
}
const textOf = (answer: unknown): string => String((answer as Block).text)

const drive = async (client: MultiServerMCPClient) => {
  const tools = await client.getTools()
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const tool = (name: string) => {
    const found = byName.get(name)
    assert.isDefined(found, `LangChain lists ${name}`)
    return found!
  }
  // A mutating call, then a read of what it changed: the model reads the structured content's JSON.
  const added = textOf(await tool("tasks_add").invoke({ title: "write docs" }))
  const id = JSON.parse(added)["id"]
  assert.match(id, /^t\d+$/)
  assert.strictEqual(textOf(await tool("tasks_open").invoke({})), JSON.stringify({ value: [id] }))
  // LangChain checks the arguments against the advertised schema before sending: a clear error.
  const invalid = await tool("tasks_add").invoke({} as never).then(
    () => assert.fail("a call without its title was sent"),
    (error: unknown) => String(error)
  )
  assert.include(invalid, "did not match expected schema")
  // A declared refusal reaches LangChain as a tool error with the board's sentence.
  const missing = await tool("tasks_complete").invoke({ value: "t404" }).then(
    () => assert.fail("completing a missing task was answered"),
    (error: unknown) => String(error)
  )
  assert.include(missing, "there is no task t404 on the board")
  // An image answer: the picture (as LangChain's image block) and, as text, what it shows.
  const progress = await tool("board_progress").invoke({}) as ReadonlyArray<Block>
  assert.deepStrictEqual(progress.map((block) => block.type), ["image_url", "text"])
  assert.match(String(progress[0]?.image_url?.url), /^data:image\/png;base64,/)
  assert.deepStrictEqual(JSON.parse(String(progress[1]?.text)), { done: 0, total: 1, width: 200, height: 20 })
  // Resources: listed and read.
  const resources = await client.listResources()
  assert.include((resources["board"] ?? []).map((resource) => resource.uri), "surface://cells/focus")
  const focus = await client.readResource("board", "surface://cells/focus")
  assert.strictEqual(focus[0]?.text, JSON.stringify("nothing yet"))
  // Prompts, through the SDK client LangChain holds.
  const sdk = await client.getClient("board")
  assert.isDefined(sdk)
  const { prompts } = await sdk!.listPrompts()
  assert.sameMembers(prompts.map((prompt) => prompt.name), ["review_task", "plan_next"])
  const review = await sdk!.getPrompt({ name: "review_task", arguments: { id } })
  assert.include(JSON.stringify(review.messages), "write docs")
  const refused = await sdk!.getPrompt({ name: "review_task", arguments: { id: "t404" } }).then(
    () => assert.fail("a prompt about a missing task was answered"),
    (error: unknown) => String(error)
  )
  assert.include(refused, "-32602")
  // Cancel: a 30 s wait aborted after a moment ends at once, and the connection still serves.
  const aborting = new AbortController()
  const started = Date.now()
  const waited = tool("stopwatch_wait").invoke({ seconds: 30 }, { signal: aborting.signal })
  setTimeout(() => aborting.abort(), 300)
  await waited.then(() => assert.fail("an aborted wait answered"), () => undefined)
  assert.isBelow(Date.now() - started, 10_000)
  assert.strictEqual(textOf(await tool("tasks_open").invoke({})), JSON.stringify({ value: [id] }))
}

const session = async (connection: Connection[keyof Connection]) => {
  const client = new MultiServerMCPClient({ mcpServers: { board: connection } } as Connection)
  try {
    await drive(client)
  } finally {
    await client.close()
  }
}

describe("LangChain drives the example board", () => {
  it("over the README's stdio command, and closing leaves no process", async () => {
    let pids: ReadonlyArray<number> = []
    const client = new MultiServerMCPClient({ mcpServers: { board: { transport: "stdio", ...stdio() } } })
    try {
      await client.getTools()
      pids = boardProcesses()
      assert.isAbove(pids.length, 0, "the board runs as a child of this test")
      await drive(client)
    } finally {
      await client.close()
    }
    assert.deepStrictEqual(await stillRunning(pids), [])
  }, 120_000)

  overHttp((url) => session({ transport: "http", url } as never))
})
