/**
 * The SDK's OAuth client provider for one sign-in attempt, over the toolset's token store.
 *
 * The SDK's `auth()` runs the protocol steps and asks a provider for what it keeps; this module
 * answers from the token store (credentials keyed by the server's URL and the issuer the SDK names)
 * and from the attempt itself (its PKCE verifier, its `state`, the discovery it made, the
 * authorization URL it built). A fresh provider per attempt means every 401 discovers afresh, so a
 * server that moved to another authorization server is followed, and what the old one issued is
 * never offered to the new one. It also holds the checks the SDK leaves to its caller: an
 * authorization server whose metadata names an endpoint that is not https (or loopback http), or
 * that does not advertise PKCE S256, is refused as soon as it is discovered, before anything is
 * registered or requested.
 */
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens
} from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as MutableRef from "effect/MutableRef"
import type * as OAuth from "../../OAuth.ts"
import type * as TokenStore from "../../TokenStore.ts"
import * as OAuthUrls from "./urls.ts"

/**
 * What the access token of the moment is: sent on every request to the server.
 */
export interface Current {
  readonly token: string
  readonly scope: string | undefined
  readonly expiresAt: number | undefined
  readonly refreshable: boolean
}

/**
 * What a provider needs: whose credentials (the server's URL), the entry's options, the store, the
 * cell of the access token of the moment, and how to run a store's Effect from the SDK's callbacks.
 */
export interface Env {
  readonly url: string
  readonly options: OAuth.ServerOptions
  readonly store: TokenStore.TokenStore
  readonly current: MutableRef.MutableRef<Current | undefined>
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly now: () => number
}

/**
 * One attempt's own state, read once the SDK's `auth()` answers `REDIRECT`.
 */
export interface Attempt {
  readonly state: string
  authorizationUrl: URL | undefined
  issuer: string | undefined
  verifier: string | undefined
  discovery: OAuthDiscoveryState | undefined
}

/** The access token a token answer carries, as the cell holds it. */
export const currentOf = (
  tokens: TokenStore.Credentials["tokens"],
  expiresAt: number | undefined
): Current | undefined =>
  tokens === undefined ? undefined : {
    token: tokens.access_token,
    scope: typeof tokens["scope"] === "string" ? tokens["scope"] : undefined,
    expiresAt,
    refreshable: typeof tokens["refresh_token"] === "string"
  }

const randomState = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url")

/**
 * A fresh attempt: its own `state`, nothing discovered yet.
 */
export const attempt = (): Attempt => ({
  state: randomState(),
  authorizationUrl: undefined,
  issuer: undefined,
  verifier: undefined,
  discovery: undefined
})

const supportsS256 = (discovery: OAuthDiscoveryState): boolean =>
  discovery.authorizationServerMetadata?.code_challenge_methods_supported?.includes("S256") === true

/**
 * The client metadata a registration sends: the refresh grant asked for, so a sign-in can be
 * renewed without the person; `application_type` the SDK derives from the redirect URL.
 */
export const clientMetadata = (options: OAuth.ServerOptions): OAuthClientMetadata => ({
  client_name: options.clientName,
  redirect_uris: [options.redirectUrl],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  ...(options.scope === undefined ? {} : { scope: options.scope })
})

type Stored = Pick<
  OAuthClientProvider,
  "clientInformation" | "saveClientInformation" | "tokens" | "saveTokens" | "invalidateCredentials"
>

// What the SDK keeps, kept in the token store under the server's URL and the issuer it names.
const stored = (env: Env, attempt: Attempt): Stored => {
  const { options, store, url } = env
  const read = (issuer: string) => env.run(store.get(url, issuer))
  const update = (issuer: string, change: (c: TokenStore.Credentials) => TokenStore.Credentials) =>
    env.run(Effect.flatMap(
      store.get(url, issuer),
      (found) => store.save({ server: url, issuer, credentials: change(found ?? {}) })
    ))
  const preRegistered: StoredOAuthClientInformation | undefined = options.clientId === undefined ? undefined : {
    client_id: options.clientId,
    ...(options.clientSecret === undefined ? {} : { client_secret: options.clientSecret })
  }
  const dropTokens = ({ expiresAt: _, tokens: __, ...rest }: TokenStore.Credentials) => rest
  return {
    clientInformation: async (ctx?: OAuthClientInformationContext) => {
      if (ctx === undefined) return preRegistered
      // A client registered beforehand is taken as the one of the authorization server in use.
      if (preRegistered !== undefined) return { ...preRegistered, issuer: ctx.issuer }
      return (await read(ctx.issuer))?.client as StoredOAuthClientInformation | undefined
    },
    saveClientInformation: async (client: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext) => {
      const issuer = ctx?.issuer ?? attempt.issuer
      if (issuer !== undefined) await update(issuer, ({ client: _, ...rest }) => ({ ...rest, client }))
    },
    tokens: async (ctx?: OAuthClientInformationContext) => {
      if (ctx !== undefined) return (await read(ctx.issuer))?.tokens as StoredOAuthTokens | undefined
      return (await env.run(store.latest(url)))?.credentials.tokens as StoredOAuthTokens | undefined
    },
    saveTokens: async (tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext) => {
      const issuer = ctx?.issuer ?? attempt.issuer
      const expiresAt = tokens.expires_in === undefined ? undefined : env.now() + tokens.expires_in * 1000
      if (issuer !== undefined) {
        await update(
          issuer,
          (found) => ({ ...dropTokens(found), tokens, ...(expiresAt === undefined ? {} : { expiresAt }) })
        )
      }
      MutableRef.set(env.current, currentOf(tokens, expiresAt))
    },
    invalidateCredentials: async (scope) => {
      const issuer = attempt.issuer
      switch (scope) {
        case "verifier":
          attempt.verifier = undefined
          return
        case "discovery":
          attempt.discovery = undefined
          return
        case "all":
          MutableRef.set(env.current, undefined)
          if (issuer !== undefined) await env.run(store.remove(url, issuer))
          return
        case "client":
          if (issuer !== undefined) await update(issuer, ({ client: _, ...rest }) => rest)
          return
        case "tokens":
          MutableRef.set(env.current, undefined)
          if (issuer !== undefined) await update(issuer, dropTokens)
          return
      }
    }
  }
}

/**
 * The provider the SDK's `auth()` is handed for `attempt`.
 */
export const make = (env: Env, attempt: Attempt): OAuthClientProvider => ({
  get redirectUrl() {
    return env.options.redirectUrl
  },
  get clientMetadata() {
    return clientMetadata(env.options)
  },
  ...(env.options.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: env.options.clientMetadataUrl }),
  ...stored(env, attempt),
  state: () => attempt.state,
  redirectToAuthorization: (authorizationUrl: URL) => {
    attempt.authorizationUrl = authorizationUrl
  },
  saveCodeVerifier: (verifier: string) => {
    attempt.verifier = verifier
  },
  codeVerifier: () => {
    if (attempt.verifier === undefined) throw new Error("no PKCE verifier was made for this sign-in")
    return attempt.verifier
  },
  discoveryState: () => attempt.discovery,
  // The checks the SDK leaves to its caller, made before anything is registered, requested or
  // opened: every endpoint the metadata names https (or loopback http), and PKCE S256 advertised.
  saveDiscoveryState: (discovery: OAuthDiscoveryState) => {
    const endpoint = OAuthUrls.metadataRefusal(discovery.authorizationServerMetadata ?? {})
    if (endpoint !== undefined) throw new Error(endpoint)
    if (!supportsS256(discovery)) {
      throw new Error(
        `the authorization server ${
          JSON.stringify(discovery.authorizationServerUrl)
        } does not advertise PKCE with S256 (code_challenge_methods_supported), so it is not used`
      )
    }
    attempt.discovery = discovery
    attempt.issuer = discovery.authorizationServerMetadata?.issuer ?? discovery.authorizationServerUrl
  }
})
