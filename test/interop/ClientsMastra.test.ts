// Mastra's MCP client (`@mastra/mcp`, `MCPClient`), with its default options, drives the example
// board as a user would: over the README's stdio command and over `npm start`'s HTTP endpoint. Its
// default (`auto`) lands on 2026-07-28 (over stdio after a throwaway probe process); it names each
// tool `<server>_<tool>`, checks a call's arguments itself, throws a tool's `isError` answer as an
// error by default, and hands its agent the structured content (the blocks, the picture among
// them, stay on a property its model-output step reads).
import { getMcpCallToolContent, MCPClient } from "@mastra/mcp"
import { assert, describe, it } from "@effect/vitest"
import { boardProcesses, overHttp, stdio, stillRunning } from "./fixtures/clients-board.ts"

type Server = ConstructorParameters<typeof MCPClient>[0]["servers"][string]

interface Block {
  readonly type: string
  readonly text?: string
  readonly mimeType?: string
}

const drive = async (mcp: MCPClient) => {
  const tools = await mcp.listTools()
  assert.deepStrictEqual(mcp.getServerProtocolVersions(), { board: "2026-07-28" })
  const run = (name: string, args: Record<string, unknown>, abortSignal?: AbortSignal): Promise<unknown> => {
    const tool = tools[`board_${name}`]
    assert.isDefined(tool?.execute, `Mastra lists board_${name}`)
    return tool!.execute!(args, (abortSignal === undefined ? {} : { abortSignal }) as never)
  }
  // A mutating call, then a read of what it changed; beside the data, the text the model reads.
  const added = await run("tasks_add", { title: "write docs" }) as { readonly id: string }
  assert.match(added.id, /^t\d+$/)
  assert.deepStrictEqual(getMcpCallToolContent(added), [{ type: "text", text: JSON.stringify({ id: added.id }) }])
  assert.deepStrictEqual(await run("tasks_open", {}), { value: [added.id] })
  // Mastra checks the arguments against the advertised schema and answers the model itself.
  const invalid = await run("tasks_add", {}) as { readonly error: boolean; readonly message: string }
  assert.isTrue(invalid.error)
  assert.include(invalid.message, "must have required property 'title'")
  // A declared refusal is thrown with the board's sentence.
  const missing = await run("tasks_complete", { value: "t404" }).then(
    () => assert.fail("completing a missing task was answered"),
    (error: unknown) => (error as Error).message
  )
  assert.include(missing, "there is no task t404 on the board")
  // An image answer: the detail as data, the picture and its text on the content property.
  const progress = await run("board_progress", {})
  assert.deepStrictEqual(progress, { done: 0, total: 1, width: 200, height: 20 })
  const blocks = getMcpCallToolContent(progress) as ReadonlyArray<Block>
  assert.deepStrictEqual(blocks.map((block) => block.type), ["image", "text"])
  assert.strictEqual(blocks[0]?.mimeType, "image/png")
  assert.deepStrictEqual(JSON.parse(String(blocks[1]?.text)), progress)
  // Resources: listed, templates listed, read.
  const resources = await mcp.resources.list()
  assert.include((resources["board"] ?? []).map((resource) => resource.uri), "surface://cells/focus")
  const templates = await mcp.resources.templates()
  assert.isAbove((templates["board"] ?? []).length, 0)
  const focus = await mcp.resources.read("board", "surface://cells/focus")
  assert.strictEqual((focus.contents[0] as { readonly text?: string }).text, JSON.stringify("nothing yet"))
  // Prompts: one filled from the board, one about a task that does not exist (the caller's mistake).
  const prompts = await mcp.prompts.list()
  assert.sameMembers((prompts["board"] ?? []).map((prompt) => prompt.name), ["review_task", "plan_next"])
  const review = await mcp.prompts.get({ serverName: "board", name: "review_task", args: { id: added.id } })
  assert.include(JSON.stringify(review.messages), "write docs")
  const refused = await mcp.prompts.get({ serverName: "board", name: "review_task", args: { id: "t404" } }).then(
    () => assert.fail("a prompt about a missing task was answered"),
    (error: unknown) => error as { readonly code?: number; readonly message?: string }
  )
  assert.strictEqual(refused.code, -32602)
  assert.include(refused.message, "there is no task t404 on the board")
  // Cancel: a 30 s wait aborted after a moment ends at once, and the connection still serves.
  const aborting = new AbortController()
  const started = Date.now()
  const waited = run("stopwatch_wait", { seconds: 30 }, aborting.signal)
  setTimeout(() => aborting.abort(), 300)
  await waited.then(() => assert.fail("an aborted wait answered"), () => undefined)
  assert.isBelow(Date.now() - started, 10_000)
  assert.deepStrictEqual(await run("tasks_open", {}), { value: [added.id] })
}

describe("Mastra drives the example board", () => {
  it("over the README's stdio command, with default options, and closing leaves no process", async () => {
    const mcp = new MCPClient({ id: "board-stdio", servers: { board: stdio() } })
    let pids: ReadonlyArray<number> = []
    try {
      await mcp.listTools()
      pids = boardProcesses()
      assert.isAbove(pids.length, 0, "the board runs as a child of this test")
      await drive(mcp)
    } finally {
      await mcp.disconnect()
    }
    assert.deepStrictEqual(await stillRunning(pids), [])
  }, 120_000)

  overHttp(async (url) => {
    const server: Server = { url: new URL(url) }
    const mcp = new MCPClient({ id: "board-http", servers: { board: server } })
    try {
      await drive(mcp)
    } finally {
      await mcp.disconnect()
    }
  })
})
