/**
 * Keeping a stdio server inside the directory it came from.
 *
 * A plugin ships its server as a path inside its own directory, and a lexical check of that path
 * sees nothing wrong with `bin/server` — even when `bin/server` is a symlink to somewhere else
 * entirely. So when a root is configured, the command and the working directory are resolved
 * through `realpath` and must land inside the root's own real path, and the resolved command is
 * what runs. A bare command name (`server`, `node`) is looked up here as the spawn would look it up
 * — on the child's `PATH`, an empty or relative entry read from its working directory — and what it
 * finds is held to the same rule: a `PATH` entry is no way out of the root. This is containment,
 * not a sandbox: the child may still read what its user can. With no root configured nothing is
 * confined.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import type * as Config from "./Config.ts"

/**
 * What a stdio entry runs once contained: the command to spawn and its working directory.
 *
 * @example
 * ```ts
 * import type { McpContainment } from "effect-surface/client"
 * const run: McpContainment.Confined = { command: "/opt/plugin/bin/server", cwd: "/opt/plugin" }
 * ```
 *
 * @since 0.1.0
 */
export interface Confined {
  readonly command: string
  readonly cwd: string | undefined
}

const real = (path: string, what: string): Effect.Effect<string, string> =>
  Effect.tryPromise({
    try: () => Fs.realpath(path),
    catch: () => `${what} ${path} does not exist or cannot be resolved`
  })

const inside = (root: string, path: string): boolean => {
  const relative = Path.relative(root, path)
  return relative === "" || (!relative.startsWith("..") && !Path.isAbsolute(relative))
}

const confinedTo = (root: string, path: string, what: string): Effect.Effect<string, string> =>
  Effect.flatMap(
    real(path, what),
    (resolved) =>
      inside(root, resolved) ? Effect.succeed(resolved)
        : Effect.fail(`${what} ${path} resolves to ${resolved}, outside the root ${root}`)
  )

const isExecutableFile = (path: string): Effect.Effect<boolean> =>
  Effect.promise(() =>
    Fs.access(path, Fs.constants.X_OK).then(
      () => Fs.stat(path).then((stat) => stat.isFile()),
      () => false
    ).catch(() => false)
  )

// A bare name where the spawn would find it: the first executable file on the child's PATH (an
// empty or relative entry read from the working directory), which must resolve inside the root.
const onPath = (name: string, path: string, cwd: string, root: string): Effect.Effect<string, string> =>
  Effect.gen(function*() {
    for (const dir of path.split(Path.delimiter)) {
      const candidate = Path.resolve(cwd, dir, name)
      if (!(yield* isExecutableFile(candidate))) continue
      const resolved = yield* real(candidate, `the command ${name}, found on PATH at`)
      if (inside(root, resolved)) return resolved
      return yield* Effect.fail(
        `the command ${name} is found on PATH at ${candidate}, which resolves to ${resolved}, outside the root ${root}`
      )
    }
    return yield* Effect.fail(`the command ${name} is not found on the PATH it would run with`)
  })

/**
 * Contain an entry in `root`: fails with the sentence saying what escapes (or cannot be resolved).
 * Without a root the entry runs as written. Under a root, a relative command or cwd is read from
 * the root (the command from the cwd when one is given), and the cwd defaults to the root; a bare
 * command name is looked up on the child's `PATH` (its entry's `env.PATH`, else this process's) and
 * must be found inside the root too.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpContainment } from "effect-surface/client"
 * const run = McpContainment.confine({ name: "plugin", type: "stdio", command: "bin/server" }, "/opt/plugin")
 * // fails when /opt/plugin/bin/server is a symlink to a file outside /opt/plugin
 * const bare = McpContainment.confine({ name: "plugin", type: "stdio", command: "node" }, "/opt/plugin")
 * // fails unless the node that PATH finds is inside /opt/plugin
 * ```
 *
 * @since 0.1.0
 */
export const confine = (config: Config.Stdio, root: string | undefined): Effect.Effect<Confined, string> => {
  if (root === undefined) return Effect.succeed({ command: config.command, cwd: config.cwd })
  return Effect.gen(function*() {
    const realRoot = yield* real(Path.resolve(root), "the root")
    const cwd = yield* confinedTo(realRoot, Path.resolve(realRoot, config.cwd ?? "."), "the working directory")
    const isPath = config.command.includes("/") || config.command.includes(Path.sep)
    const command = isPath ? yield* confinedTo(realRoot, Path.resolve(cwd, config.command), "the command")
      : yield* onPath(config.command, config.env?.["PATH"] ?? process.env["PATH"] ?? "", cwd, realRoot)
    return { command, cwd }
  })
}
