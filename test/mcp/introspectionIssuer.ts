// A hand-built RFC 7662 introspection endpoint on a free loopback port, for the verifier's hostile
// cases: it answers each token from a table the test sets (any other is inactive), after a delay the
// test chooses, and counts its calls and the most it was answering at once.
import { Effect } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

export interface Introspector {
  readonly issuer: string
  readonly endpoint: string
  /** What the endpoint answers for a token; a token not here is answered `{ active: false }`. */
  readonly answers: Map<string, Record<string, unknown>>
  /** How long each answer takes, in milliseconds. */
  delay: number
  readonly calls: () => number
  readonly mostAtOnce: () => number
}

export const start = (): Effect.Effect<Introspector, never, import("effect").Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let calls = 0
      let atOnce = 0
      let most = 0
      const server = NodeHttp.createServer((request, response) => {
        if (request.url !== "/introspect" || request.method !== "POST") {
          response.statusCode = 404
          return void response.end()
        }
        calls++
        atOnce++
        most = Math.max(most, atOnce)
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const token = new URLSearchParams(Buffer.concat(chunks).toString()).get("token") ?? ""
          setTimeout(() => {
            atOnce--
            response.setHeader("content-type", "application/json")
            response.end(JSON.stringify(introspector.answers.get(token) ?? { active: false }))
          }, introspector.delay)
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const introspector: Introspector & { readonly server: NodeHttp.Server } = {
        issuer,
        endpoint: `${issuer}/introspect`,
        answers: new Map(),
        delay: 0,
        calls: () => calls,
        mostAtOnce: () => most,
        server
      }
      return introspector
    }),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )
