// Instances of an example server as child processes (Node, from sources), each on a free loopback
// port with its sessions in one Redis, behind a round-robin proxy with no affinity. An instance can
// be killed outright (SIGKILL: no shutdown, no goodbye to Redis), as a crashed machine would be.
import { Deferred, Effect, Exit } from "effect"
import type { Scope } from "effect"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Proxy from "./proxy.ts"

const root = fileURLToPath(new URL("../../..", import.meta.url))

export interface Instance {
  readonly url: string
  readonly port: number
  readonly pid: number
  /** Kill it with SIGKILL and wait for it to be gone. */
  readonly kill: Effect.Effect<void>
  /** What it has printed so far (stdout and stderr). */
  readonly output: () => string
}

export interface Options {
  /** The example to run, from the repository root: `examples/main.ts` or `examples/conformance-server/main.ts`. */
  readonly script: string
  readonly redisUrl: string
  /** Printed by the script once it is listening; its first group is the URL. */
  readonly ready: RegExp
  readonly env?: Readonly<Record<string, string>>
  readonly nodeFlags?: ReadonlyArray<string>
}

/** Start one instance for the scope's life (stopped with SIGTERM at its end). */
export const start = (options: Options): Effect.Effect<Instance, never, Scope.Scope> =>
  Effect.gen(function*() {
    const ready = yield* Deferred.make<string, string>()
    let output = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = ChildProcess.spawn(process.execPath, [
          ...(options.nodeFlags ?? []),
          "--conditions=effect-surface-source",
          options.script
        ], {
          cwd: root,
          env: { ...process.env, PORT: "0", NO_COLOR: "1", REDIS_URL: options.redisUrl, ...options.env },
          stdio: ["ignore", "pipe", "pipe"]
        })
        const read = (chunk: Buffer) => {
          output += chunk.toString()
          const url = options.ready.exec(output)?.[1]
          if (url !== undefined) Deferred.doneUnsafe(ready, Exit.succeed(url))
        }
        child.stdout.on("data", read)
        child.stderr.on("data", read)
        child.once("exit", (code, signal) =>
          Deferred.doneUnsafe(
            ready,
            Exit.fail(`${options.script} exited (${code ?? signal}) before it was ready:\n${output}`)
          ))
        return child
      }),
      (child) => stop(child, "SIGTERM")
    )
    const url = yield* Deferred.await(ready).pipe(Effect.timeout("60 seconds"), Effect.orDie)
    return {
      url,
      port: Number(new URL(url).port),
      pid: child.pid ?? 0,
      kill: stop(child, "SIGKILL"),
      output: () => output
    }
  })

const stop = (child: ChildProcess.ChildProcess, signal: NodeJS.Signals) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill(signal)
  })

export interface Pair {
  readonly proxy: Proxy.Proxy
  readonly instances: ReadonlyArray<Instance>
}

/**
 * `count` instances behind one proxy. The proxy is started first, so each instance is told the
 * address clients reach it by (its Host header is checked against it).
 */
export const behindProxy = (
  options: Omit<Options, "env"> & {
    /** The environment of each instance; a function is handed the proxy's URL (what clients reach). */
    readonly env?: Readonly<Record<string, string>> | ((proxyUrl: string) => Readonly<Record<string, string>>)
  },
  count = 2
): Effect.Effect<Pair, never, Scope.Scope> =>
  Effect.gen(function*() {
    const backends: Array<string> = []
    const proxy = yield* Proxy.start(backends)
    const instances = yield* Effect.forEach(
      Array.from({ length: count }),
      () =>
        start({
          ...options,
          env: {
            ...(typeof options.env === "function" ? options.env(proxy.url) : options.env),
            ALLOWED_HOSTS: `127.0.0.1:${proxy.port},localhost:${proxy.port}`
          }
        }),
      { concurrency: "unbounded" }
    )
    backends.push(...instances.map((instance) => `http://127.0.0.1:${instance.port}`))
    return { proxy, instances }
  })
