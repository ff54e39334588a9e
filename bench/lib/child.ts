// A benchmark server in a child process: this Node, the source condition, an IPC channel for its
// "ready" and for requests answered by id (memory and CPU readings, timed runs); killed when the
// bench lets go of it.
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

/** `BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR"` profiles every server child. */
export const serverNodeFlags: ReadonlyArray<string> = (process.env.BENCH_SERVER_NODE_FLAGS ?? "").split(" ")
  .filter((flag) => flag !== "")

export interface Child {
  /** What the child said it serves at (HTTP children), or "" */
  readonly url: string
  readonly process: ChildProcess
  /** Send `{ ...request, id }` and wait for the answer carrying the same id. */
  readonly ask: <A>(request: { readonly type: string; readonly [key: string]: unknown }) => Promise<A>
  readonly stop: () => Promise<void>
}

/** Spawn `bench/servers/<script>` with `args`, and wait for its `ready`. */
export const spawnServer = (
  script: string,
  args: ReadonlyArray<string>,
  nodeFlags: ReadonlyArray<string> = [],
  env: Readonly<Record<string, string>> = {}
): Promise<Child> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...nodeFlags,
        ...serverNodeFlags,
        "--conditions=effect-surface-source",
        path.join(here, "..", "servers", script),
        ...args
      ],
      { stdio: ["ignore", "inherit", "inherit", "ipc"], env: { ...process.env, ...env } }
    )
    let nextId = 0
    const waiting = new Map<number, (answer: unknown) => void>()
    const failEarly = (code: number | null) =>
      reject(new Error(`${script} ${args.join(" ")} exited (${String(code)}) before it was ready`))
    child.once("exit", failEarly)
    // A child that dies fails whatever was waiting on it, rather than leaving the bench hanging.
    child.once("exit", (code, signal) => {
      for (const answer of waiting.values()) answer({ error: `exited (${String(code ?? signal)})` })
      waiting.clear()
    })
    child.on(
      "message",
      (message: { readonly type?: string; readonly id?: number; readonly url?: string; readonly error?: string }) => {
        if (message.type === "ready") {
          child.off("exit", failEarly)
          resolve({
            url: message.url ?? "",
            process: child,
            ask: <A>(request: { readonly type: string }) =>
              new Promise<A>((answer, fail) => {
                const id = nextId++
                waiting.set(id, (reply) => {
                  const error = (reply as { readonly error?: string }).error
                  if (error === undefined) answer(reply as A)
                  else fail(new Error(`${script} ${args.join(" ")}: ${error}`))
                })
                child.send({ ...request, id })
              }),
            stop: () =>
              new Promise<void>((done) => {
                if (child.exitCode !== null || child.signalCode !== null) return done()
                child.once("exit", () => done())
                child.kill("SIGTERM")
              })
          })
        } else if (message.id !== undefined) {
          const answer = waiting.get(message.id)
          waiting.delete(message.id)
          answer?.(message)
        }
      }
    )
  })
