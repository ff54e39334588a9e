// An ACP `request` round trip, answer checked, against the SDK's agent app calling the same editor
// directly (no check, no capability test, no cancel wiring). Both agents serve the same workload
// (lib/acp.ts: a prompt making `n` sequential `fs/read_text_file` calls from inside the turn) to
// the same editor, the SDK's client app, which times the prompt; the figure is µs per call, the
// prompt itself amortized over the calls. Measured twice: in one process over a pair of ndJSON
// streams (nothing but the two implementations differs), and with the agent in a child process on
// stdio, the way an editor runs one.
import * as Acp from "@agentclientprotocol/sdk"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { Readable, Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import { AcpAgent } from "effect-surface/acp"
import { editorOn, oursHandler, rawAgent } from "./lib/acp.ts"
import { count, emit, interleave, median, note } from "./lib/measure.ts"

interface Competitor {
  /** µs per call over `n` calls made in one turn. */
  readonly run: (n: number) => Promise<number>
  readonly close: () => Promise<void>
}

const pipes = () => {
  const toEditor = new TransformStream<Uint8Array, Uint8Array>()
  const toAgent = new TransformStream<Uint8Array, Uint8Array>()
  return {
    agent: Acp.ndJsonStream(toEditor.writable, toAgent.readable),
    editor: Acp.ndJsonStream(toAgent.writable, toEditor.readable)
  }
}

const oursInProcess = async (): Promise<Competitor> => {
  const { agent, editor } = pipes()
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(
    AcpAgent.connect(agent).pipe(Scope.provide(scope), Effect.provide(AcpAgent.layer(oursHandler)))
  )
  const driver = await editorOn(editor)
  return {
    run: driver.run,
    close: () => Effect.runPromise(Effect.andThen(Effect.sync(driver.close), Scope.close(scope, Exit.void)))
  }
}

const rawInProcess = async (): Promise<Competitor> => {
  const { agent, editor } = pipes()
  const connection = rawAgent().connect(agent)
  const driver = await editorOn(editor)
  return {
    run: driver.run,
    close: async () => {
      driver.close()
      connection.close()
    }
  }
}

const here = path.dirname(fileURLToPath(import.meta.url))

const overStdio = (kind: "ours" | "raw") => async (): Promise<Competitor> => {
  const child = spawn(process.execPath, [
    "--conditions=effect-surface-source",
    path.join(here, "servers", "acp.ts"),
    kind
  ], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  const driver = await editorOn(
    Acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>
    )
  )
  return {
    run: driver.run,
    close: () =>
      new Promise<void>((done) => {
        driver.close()
        if (child.exitCode !== null) return done()
        child.once("exit", () => done())
        child.kill("SIGTERM")
      })
  }
}

const figure = async (
  transport: string,
  make: ReadonlyArray<() => Promise<Competitor>>,
  calls: number,
  warm: number
): Promise<void> => {
  const competitors = await Promise.all(make.map((f) => f()))
  try {
    const samples = count(21, 3)
    note(
      `acp ${transport}: warm-up ${warm} calls each, then ${samples} samples × ${calls} sequential fs/read_text_file calls in one turn`
    )
    for (const competitor of competitors)
      for (let done = 0; done < warm; done += 5000) await competitor.run(Math.min(5000, warm - done))
    const taken = await interleave(competitors.map((c) => () => c.run(calls)), { samples, warmup: count(2, 1) })
    const [ours, peer] = taken.map(median) as [number, number]
    emit({
      bench: `acp_request.${transport}.sequential.vs_raw_sdk_agent`,
      ours,
      peer,
      unit: "µs per checked request, median"
    })
  } finally {
    await Promise.all(competitors.map((c) => c.close()))
  }
}

export const run = async (): Promise<void> => {
  // Warm-ups long enough for both to settle: Effect's code keeps getting faster for tens of thousands of calls.
  await figure("in_process", [oursInProcess, rawInProcess], count(5000, 200), count(60_000, 500))
  await figure("stdio", [overStdio("ours"), overStdio("raw")], count(2000, 100), count(40_000, 300))
}
