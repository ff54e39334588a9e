// The Vercel AI SDK's MCP client (`@ai-sdk/mcp`), with its default options, drives the example board
// as a user would: over the README's stdio command and over `npm start`'s HTTP endpoint. Its
// default over stdio probes with `server/discover` and, its deadline passed, sends `initialize` on
// the same pipe; over HTTP it lands on 2026-07-28.
import { createMCPClient, type MCPClient } from "@ai-sdk/mcp"
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio"
import { assert, describe, it } from "@effect/vitest"
import { boardProcesses, overHttp, stdio, stillRunning } from "./fixtures/clients-board.ts"

interface Answer {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string; readonly mimeType?: string }>
  readonly structuredContent?: { readonly [key: string]: unknown }
  readonly isError?: boolean
}

const execute = async (client: MCPClient, name: string, args: Record<string, unknown>, signal?: AbortSignal) => {
  const tools = await client.tools()
  const tool = tools[name]
  assert.isDefined(tool, `the AI SDK lists ${name}`)
  return await tool?.execute?.(args, {
    toolCallId: name,
    messages: [],
    context: {},
    ...(signal === undefined ? {} : { abortSignal: signal })
  }) as Answer
}

const drive = async (client: MCPClient) => {
  const tools = await client.tools()
  for (const name of ["tasks_add", "tasks_complete", "tasks_open", "board_progress", "stopwatch_wait"]) {
    assert.property(tools, name)
  }
  // A mutating call, then a read of what it changed: the text block is the structured content's JSON.
  const added = await execute(client, "tasks_add", { title: "write docs" })
  assert.isNotTrue(added.isError)
  const id = String(added.structuredContent?.["id"])
  assert.deepStrictEqual(added.content, [{ type: "text", text: JSON.stringify({ id }) }])
  const open = await execute(client, "tasks_open", {})
  assert.deepStrictEqual(open.structuredContent, { value: [id] })
  assert.strictEqual(open.content[0]?.text, JSON.stringify({ value: [id] }))
  // The AI SDK does not check arguments itself: the board's refusal names the missing field.
  const invalid = await execute(client, "tasks_add", {})
  assert.isTrue(invalid.isError)
  assert.match(String(invalid.content[0]?.text), /^effect-surface: .*title/)
  // A declared refusal carries its tag as structured content.
  const missing = await execute(client, "tasks_complete", { value: "t404" })
  assert.isTrue(missing.isError)
  assert.deepStrictEqual(missing.structuredContent, { _tag: "TaskNotFound", id: "t404" })
  // An image answer carries its picture and, as text, what it shows.
  const progress = await execute(client, "board_progress", {})
  assert.deepStrictEqual(progress.content.map((block) => block.type), ["image", "text"])
  assert.strictEqual(progress.content[0]?.mimeType, "image/png")
  assert.deepStrictEqual(JSON.parse(String(progress.content[1]?.text)), progress.structuredContent)
  // Resources and templates, then a read.
  const { resources } = await client.listResources()
  assert.include(resources.map((resource) => resource.uri), "surface://cells/focus")
  const { resourceTemplates } = await client.listResourceTemplates()
  assert.isAbove(resourceTemplates.length, 0)
  const focus = await client.readResource({ uri: "surface://cells/focus" })
  assert.strictEqual((focus.contents[0] as { readonly text?: string }).text, JSON.stringify("nothing yet"))
  // Prompts: one filled from the board, and one about a task that does not exist (the caller's mistake).
  const { prompts } = await client.listPrompts()
  assert.sameMembers(prompts.map((prompt) => prompt.name), ["review_task", "plan_next"])
  const review = await client.getPrompt({ name: "review_task", arguments: { id } })
  assert.include(JSON.stringify(review.messages), "write docs")
  const refused = await client.getPrompt({ name: "review_task", arguments: { id: "t404" } }).then(
    () => assert.fail("a prompt about a missing task was answered"),
    (error: unknown) => error
  )
  assert.include(String(refused), "there is no task t404 on the board")
  assert.include(JSON.stringify(refused), "-32602")
  // Cancel: a 30 s wait aborted after a moment ends at once, and the connection still serves.
  const aborting = new AbortController()
  const started = Date.now()
  const waited = execute(client, "stopwatch_wait", { seconds: 30 }, aborting.signal)
  setTimeout(() => aborting.abort(), 300)
  await waited.then(() => assert.fail("an aborted wait answered"), () => undefined)
  assert.isBelow(Date.now() - started, 10_000)
  assert.deepStrictEqual((await execute(client, "tasks_open", {})).structuredContent, { value: [id] })
}

describe("the AI SDK drives the example board", () => {
  it("over the README's stdio command, with default options, and closing leaves no process", async () => {
    const client = await createMCPClient({
      transport: new StdioMCPTransport(stdio())
    })
    const pids = boardProcesses()
    assert.isAbove(pids.length, 0, "the board runs as a child of this test")
    try {
      await drive(client)
    } finally {
      await client.close()
    }
    // On 2025 (where the AI SDK lands when the board starts slower than its 1 s probe) the aborted
    // wait was never cancelled: the board lets it answer within its drain (see stillRunning).
    assert.deepStrictEqual(await stillRunning(pids), [])
  }, 120_000)

  overHttp(async (url) => {
    const client = await createMCPClient({ transport: { type: "http", url: url } })
    try {
      await drive(client)
    } finally {
      await client.close()
    }
  })
})
