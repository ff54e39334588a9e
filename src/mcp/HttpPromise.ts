/**
 * The Promise API's HTTP door: `McpHttp.layer` run by a `ManagedRuntime`.
 *
 * Kept apart from `McpServer` so that serving over stdio never loads the HTTP stack: it is
 * imported only when `serveSurfaceAsMcp` is asked for HTTP. Resolved once the server is listening;
 * `close` stops it as the layer's release does (draining in-flight calls first).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Scope from "effect/Scope"
import * as Auth from "./auth/Auth.ts"
import type * as Face from "./face/Face.ts"
import * as McpHttp from "./Http.ts"
import * as TokenVerifier from "./auth/TokenVerifier.ts"
import { boot, door as doorOf, moves } from "./internal/promiseRuntime.ts"

export const serve = async (
  faceOptions: Face.Options<unknown, Scope.Scope>,
  { auth, transport: _, ...http }: McpHttp.HttpOptions & {
    readonly transport: "http"
    readonly auth?: Auth.Options & { readonly issuer: string } | undefined
  }
) => {
  const served = McpHttp.layer({ ...faceOptions, http })
  const door = doorOf(ManagedRuntime.make(
    auth === undefined ? served : served.pipe(
      Layer.provide(Auth.layer(auth)),
      Layer.provide(TokenVerifier.layerJwt({ issuer: auth.issuer }))
    )
  ))
  const endpoint = await boot(door, Effect.service(McpHttp.Endpoint))
  let stopped = (): void => {}
  const closed = new Promise<void>((resolve) => {
    stopped = resolve
  })
  const close = () => door.close().finally(stopped)
  return {
    url: endpoint.url,
    host: endpoint.host,
    port: endpoint.port,
    ...moves(door, endpoint.face),
    close,
    closed
  }
}
