// The example agent's turn: one command per prompt, done through the person's editor and told back
// as agent_message_chunk updates. Each piece of work the editor is asked to do is shown as a tool
// call; `write`, `run` and `call` ask the person first (`call` through the session toolset's policy,
// the others through the same `Approval`), and a capability the editor did not advertise is
// explained rather than called.
import type * as Acp from "@agentclientprotocol/sdk"
import * as Path from "node:path"
import { Duration, Effect, Option } from "effect"
import { Approval } from "effect-surface"
import { messageOf } from "effect-surface/tools"
import {
  AcpCapabilities,
  type AcpError,
  type AcpProtocol,
  type AcpSession,
  AcpSurface,
  AcpToolCalls
} from "effect-surface/acp"
import { type CallError, type McpCallResult, McpToolset } from "effect-surface/client"
import { type Command, parse, usage } from "./commands.ts"

/** How long `run` waits for its command before killing it. */
export const runDeadline: Duration.Duration = Duration.seconds(60)

const say = (text: string) =>
  Effect.ignore(AcpSurface.notify({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } }))

const promptText = (request: Acp.PromptRequest): string =>
  request.prompt.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n")

const resolve = (
  session: AcpSession.Info,
  path: string
) => (Path.isAbsolute(path) ? path : Path.join(session.cwd, path))

// Said before anything is sent: the editor never offered what this needs.
const notOffered = Effect.fn("ExampleAgent.notOffered")(
  function*(method: AcpProtocol.Method, params: object, doing: string) {
    const surface = yield* AcpSurface.AcpSurface
    const missing = AcpCapabilities.check(surface.capabilities, method, params)
    if (missing === undefined) return false
    yield* say(`I cannot ${doing}: your editor did not offer ${missing.capability} to agents, so I did not ask it.`)
    return true
  }
)

// The person's yes, asked inside the tool call it is about; a no is told and ends the command.
const permitted = (toolName: string, args: unknown) =>
  Effect.flatMap(
    Approval.ask({ toolName, server: "editor", tool: toolName, args }),
    (decision) =>
      decision._tag === "Allow" ? Effect.succeed(true) : Effect.as(say(`Not done: ${decision.reason}.`), false)
  )

const read = (session: AcpSession.Info, path: string) =>
  Effect.gen(function*() {
    const params = { path: resolve(session, path) }
    if (yield* notOffered("fs/read_text_file", params, `read ${params.path}`)) return
    const content = yield* AcpToolCalls.report(
      { title: `Read ${params.path}`, kind: "read", rawInput: params },
      Effect.map(AcpSurface.request("fs/read_text_file", params), (answer) => answer.content),
      { output: () => [] }
    )
    yield* say(`${params.path}:\n\`\`\`\n${content}\n\`\`\``)
  })

const write = (session: AcpSession.Info, path: string, content: string) =>
  Effect.gen(function*() {
    const params = { path: resolve(session, path), content }
    if (yield* notOffered("fs/write_text_file", params, `write ${params.path}`)) return
    const done = yield* AcpToolCalls.report(
      { title: `Write ${params.path}`, kind: "edit", rawInput: params },
      Effect.gen(function*() {
        if (!(yield* permitted("write", params))) return false
        yield* AcpSurface.request("fs/write_text_file", params)
        return true
      })
    )
    if (done) yield* say(`Wrote ${content.length} characters to ${params.path}.`)
  })

// A terminal in the editor: created, its cleanup registered for a cancel, waited on under a
// deadline (killed past it), read, and released — by this code on every path but a cancel, when
// the registration is what releases it.
const inTerminal = (params: AcpProtocol.Params<"terminal/create">) =>
  Effect.gen(function*() {
    const { terminalId } = yield* AcpSurface.request("terminal/create", params)
    const toolCallId = yield* Effect.service(AcpToolCalls.CurrentToolCall)
    if (toolCallId !== undefined) {
      yield* Effect.ignore(
        AcpSurface.notify({
          sessionUpdate: "tool_call_update",
          toolCallId,
          content: [{ type: "terminal", terminalId }]
        })
      )
    }
    const withdraw = yield* AcpSurface.onCancel([
      { method: "terminal/kill", params: { terminalId } },
      { method: "terminal/release", params: { terminalId } }
    ])
    const work = Effect.gen(function*() {
      const exited = yield* Effect.timeoutOption(
        AcpSurface.request("terminal/wait_for_exit", { terminalId }),
        runDeadline
      )
      if (Option.isNone(exited)) yield* AcpSurface.request("terminal/kill", { terminalId })
      const output = yield* AcpSurface.request("terminal/output", { terminalId })
      return { exited, output }
    })
    const result = yield* work.pipe(
      // The wait failed and the registration still stands: release it ourselves all the same (after
      // a cancel these are refused unsent, and the registration sends them instead).
      Effect.tapError(() =>
        Effect.ignore(
          Effect.andThen(
            AcpSurface.request("terminal/kill", { terminalId }),
            AcpSurface.request("terminal/release", { terminalId })
          )
        )
      )
    )
    yield* withdraw
    yield* AcpSurface.request("terminal/release", { terminalId })
    return result
  }).pipe(Effect.scoped)

const run = (session: AcpSession.Info, command: string, args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const params = { command, args: [...args], cwd: session.cwd, outputByteLimit: 64 * 1024 }
    if (yield* notOffered("terminal/create", params, `run ${command}`)) return
    const line = [command, ...args].join(" ")
    const result = yield* AcpToolCalls.report(
      { title: `Run ${line}`, kind: "execute", rawInput: params },
      Effect.gen(function*() {
        if (!(yield* permitted("run", params))) return undefined
        return yield* inTerminal(params)
      }),
      { output: () => [] }
    )
    if (result === undefined) return
    const status = Option.match(result.exited, {
      onNone: () => `was killed after ${Duration.format(runDeadline)}`,
      onSome: (exit) =>
        exit.signal != null ? `ended by ${exit.signal}` : `exited with code ${exit.exitCode ?? "unknown"}`
    })
    yield* say(
      `\`${line}\` ${status}${
        result.output.truncated ? " (output truncated)" : ""
      }:\n\`\`\`\n${result.output.output}\n\`\`\``
    )
  })

const tools = Effect.gen(function*() {
  const toolset = yield* McpToolset.McpToolset
  const listed = [...(yield* toolset.tools).values()]
  // What kept a server out (refused, unreachable, a name clash), told beside the list.
  const warnings = (yield* toolset.diagnostics).flatMap((d) => (d.level === "warning" ? [`(${d.message})`] : []))
  const lines = listed.length === 0
    ? ["No tools: this session's MCP servers offer none (an editor sends them in session/new)."]
    : listed.map((tool) => `- ${tool.name}${tool.description === "" ? "" : `: ${tool.description}`}`)
  yield* say([...lines, ...warnings].join("\n"))
})

// A result's text blocks as the editor shows them; any other block as its JSON.
const textOf = (block: McpCallResult.Content) =>
  block.type === "text" && typeof block.text === "string" ? block.text : JSON.stringify(block)
const shown = (result: McpCallResult.Result) => result.content.map(textOf).join("\n")

// The toolset asks the person itself (its policy says ask), inside the tool call reported here.
const call = (tool: string, args: unknown) =>
  Effect.gen(function*() {
    const toolset = yield* McpToolset.McpToolset
    const result = yield* AcpToolCalls.report(
      { title: `Call ${tool}`, kind: "other", rawInput: args },
      toolset.call(tool, args),
      { output: (answer) => [{ type: "content", content: { type: "text", text: shown(answer) } }] }
    ).pipe(
      Effect.catchTag("PolicyDenied", (denied) => Effect.as(say(`Not done: ${denied.reason}.`), undefined))
    )
    if (result !== undefined) yield* say(`${tool} answered:\n\`\`\`\n${shown(result)}\n\`\`\``)
  })

type Failure = AcpError.RequestError | AcpError.NoSurface | CallError

const perform = (
  session: AcpSession.Info,
  command: Command
): Effect.Effect<void, Failure, AcpSurface.AcpSurface | McpToolset.McpToolset> => {
  switch (command._tag) {
    case "Read":
      return read(session, command.path)
    case "Write":
      return write(session, command.path, command.text)
    case "Run":
      return run(session, command.command, command.args)
    case "Tools":
      return tools
    case "Call":
      return call(command.tool, command.args)
    case "Help":
      return say(command.problem === undefined ? usage : `${command.problem}.\n\n${usage}`)
  }
}

// What went wrong, told to the person; a cancelled or vanished editor has no one left to tell.
const explain = (error: Failure) =>
  error._tag === "Cancelled" || error._tag === "Disconnected" ? Effect.void
    : say(`That did not work: ${messageOf(error)}.`)

/** One turn: the prompt's command, done. */
export const handler = (request: Acp.PromptRequest, session: AcpSession.Info) =>
  perform(session, parse(promptText(request))).pipe(Effect.catch(explain))
