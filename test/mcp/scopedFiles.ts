// The example board served over HTTP behind a resource server with test tokens, beside app
// resources a scope protects: three templates of different RFC 6570 operators and one fixed file,
// all needing `files:read`, and one fixed file needing no scope. `guest` holds no scope, `reader` reads the board and the files, `admin`
// also writes the board. The board's state is handed back, so a test can move what a listener hears.
import { Effect, Layer, PubSub, Stream } from "effect"
import { Identity } from "effect-surface"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import type { McpAppResources } from "effect-surface/mcp"
import { serverOptionsOver } from "../../examples/board/app.ts"
import * as BoardState from "../../examples/board/state.ts"
import { overHttp } from "./modern.ts"
import type { Mode } from "./modern.ts"

export const templates = {
  docs: "files://docs{/name}",
  raw: "files://raw/{+path}",
  query: "files://q{?id}"
} as const

/** A URI each template serves that a `{…}` read as one segment does not match. */
export const uris = {
  docs: "files://docs/readme",
  raw: "files://raw/etc/passwd",
  query: "files://q?id=a/b"
} as const

export const secretFile = "files://secret"
/** A file every authenticated caller may read. */
export const publicFile = "files://public"
/** A file `files:read` protects that is not served until a test adds it (see `filesTable`). */
export const extraFile = "files://extra"

const file = (name: string, changed: PubSub.PubSub<void>): McpAppResources.Template => ({
  name,
  mimeType: "text/plain",
  read: (params) => Effect.succeed({ text: `${name} ${JSON.stringify(params)}` }),
  changes: () => Stream.fromPubSub(changed)
})

export const tokens = {
  guest: Identity.token({ subject: "guest", clientId: "t", scopes: [] }),
  reader: Identity.token({ subject: "ada", clientId: "t", scopes: ["board:read", "files:read"] }),
  admin: Identity.token({ subject: "root", clientId: "t", scopes: ["board:read", "board:write", "files:read"] })
}

export type Token = keyof typeof tokens

const fixed = (name: string, changed: PubSub.PubSub<void>): McpAppResources.Resource => ({
  name,
  mimeType: "text/plain",
  read: Effect.succeed({ text: name }),
  changes: Stream.fromPubSub(changed)
})

/** The app's files, with `more` fixed files beside them (by URI) and `moreTemplates` after them. */
export const filesTable = (
  changed: PubSub.PubSub<void>,
  more: ReadonlyArray<string> = [],
  moreTemplates: ReadonlyArray<string> = []
): McpAppResources.Table => ({
  resources: {
    [publicFile]: fixed("public", changed),
    [secretFile]: fixed("secret", changed),
    ...Object.fromEntries(more.map((uri) => [uri, fixed(uri, changed)]))
  },
  templates: {
    [templates.docs]: file("docs", changed),
    [templates.raw]: file("raw", changed),
    [templates.query]: file("query", changed),
    ...Object.fromEntries(moreTemplates.map((uriTemplate) => [uriTemplate, file(uriTemplate, changed)]))
  }
})

/** What a test serves beside the files: templates after theirs, and scopes beside theirs. */
export interface More {
  readonly templates?: ReadonlyArray<string>
  readonly scopes?: { readonly [uriOrTemplate: string]: string }
}

/** The board and its files behind the resource server; `http` adds to the endpoint's options. */
export const serveScoped = (http: McpHttp.HttpOptions = {}, more: More = {}) =>
  Effect.gen(function*() {
    const state = yield* BoardState.memory
    const changed = yield* PubSub.unbounded<void>()
    const options = serverOptionsOver(state)
    const served = yield* McpHttp.serve({
      ...options,
      coalesce: "1 millis",
      resources: filesTable(changed, [], more.templates),
      scopes: {
        ...options.scopes,
        resources: {
          [templates.docs]: "files:read",
          [templates.raw]: "files:read",
          [templates.query]: "files:read",
          [secretFile]: "files:read",
          [extraFile]: "files:read",
          ...more.scopes
        }
      },
      http: { port: 0, ...http }
    }).pipe(
      Effect.provide(
        McpAuth.layer({ scopesSupported: ["board:read", "board:write", "files:read"] }).pipe(
          Layer.provide(McpTokenVerifier.layerTest({ issuer: "https://auth.test", tokens }))
        )
      )
    )
    return { url: served.url, state, changed, served }
  })

/** A fetch that carries `token` as its bearer. */
export const bearer = (token: string): typeof fetch => (input, init) => {
  const headers = new Headers(init?.headers)
  headers.set("authorization", `Bearer ${token}`)
  return fetch(input, { ...init, headers })
}

/** The official v2 client in `mode`, signed in with `token`. */
export const connectAs = (url: string, mode: Mode, token: Token) => overHttp(url, mode, {}, bearer(token))
