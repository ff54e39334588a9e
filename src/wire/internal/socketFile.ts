/**
 * The socket file a wire server listens on: cleared when a killed server left it behind, created so
 * that only its owner can ever dial it, and removed when the server stops.
 *
 * Whoever can connect to the socket reaches every member served on it, so its mode is the face's
 * access control. A socket takes its mode from the umask when it is bound, and changing it after is
 * a window in which anyone the umask lets in can connect. So the socket is bound inside a directory
 * of its own that only the owner can enter, made owner-only there, and only then linked into place
 * — `link` refuses a path that exists, so a server that appeared meanwhile is never displaced. The
 * umask is never touched: it is the whole process's.
 */
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import type * as Scope from "effect/Scope"
import type { SocketServer } from "effect/socket"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"

/** Why a step failed, in words. */
export interface Failure {
  readonly reason: string
}

const errorText = (e: unknown): string =>
  Predicate.hasProperty(e, "message") && typeof e.message === "string" ? e.message : String(e)

const errnoOf = (e: unknown): string | undefined =>
  Predicate.hasProperty(e, "code") && typeof e.code === "string" ? e.code : undefined

const failure = (e: unknown): Failure => ({ reason: errorText(e) })

/** Does anything accept connections on the path? Refused means a socket file nobody listens on. */
const probe = (path: string): Effect.Effect<boolean, Failure> =>
  Effect.callback((resume) => {
    const conn = Net.createConnection({ path })
    conn.once("connect", () => {
      conn.destroy()
      resume(Effect.succeed(true))
    })
    conn.once("error", (e) => {
      conn.destroy()
      resume(
        errnoOf(e) === "ECONNREFUSED" || errnoOf(e) === "ENOENT" ? Effect.succeed(false) : Effect.fail(failure(e))
      )
    })
    return Effect.sync(() => conn.destroy())
  })

/**
 * A daemon killed without its finalizers leaves its socket file behind, and listening on a path that
 * exists fails. Only a socket nobody answers on is removed: a live server is never displaced.
 */
export const clearStale = (path: string): Effect.Effect<void, Failure> =>
  Effect.gen(function*() {
    const stat = yield* Effect.try({ try: () => Fs.lstatSync(path, { throwIfNoEntry: false }), catch: failure })
    if (stat === undefined) return
    if (!stat.isSocket()) return yield* Effect.fail({ reason: "a file that is not a socket is in the way" })
    if (yield* probe(path)) return yield* Effect.fail({ reason: "a live server is already listening on it" })
    yield* Effect.try({ try: () => Fs.rmSync(path, { force: true }), catch: failure })
  })

// The private directory, next to the path so the link stays on one file system; a short name, since
// a socket path has about 107 bytes.
const privateDirectory = (path: string): Effect.Effect<string, Failure, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({ try: () => Fs.mkdtempSync(Path.join(Path.dirname(path), ".w-")), catch: failure }),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * Listen on `path`, the socket owner-only (mode 0600) from the moment it can be dialled there. The
 * socket file is removed when the scope closes, unless another server's has replaced it.
 */
export const listen = (path: string): Effect.Effect<SocketServer.SocketServer["Service"], Failure, Scope.Scope> =>
  Effect.gen(function*() {
    const dir = yield* privateDirectory(path)
    const bound = Path.join(dir, "s")
    const server = yield* NodeSocketServer.make({ path: bound }).pipe(Effect.mapError(failure))
    const placed = yield* Effect.try({
      try: () => {
        Fs.chmodSync(bound, 0o600)
        Fs.linkSync(bound, path)
        // Served at `path` alone from here: a server killed now leaves one stale socket, nothing else.
        Fs.rmSync(dir, { recursive: true, force: true })
        return Fs.lstatSync(path).ino
      },
      catch: (e) =>
        errnoOf(e) === "EEXIST" ? { reason: "another server took the path while this one started" } : failure(e)
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (Fs.lstatSync(path, { throwIfNoEntry: false })?.ino === placed) Fs.rmSync(path, { force: true })
      })
    )
    return server
  })
