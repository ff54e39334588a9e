/**
 * One server's OAuth sign-in, at the `fetch` its transport sends through: the bearer of the moment
 * on every request, a sign-in on a 401, a step-up on a 403 `insufficient_scope`, and the request
 * sent again once it is done.
 *
 * Sign-ins are taken one at a time (a semaphore): requests refused together wait for the one
 * sign-in, then go again with its token. An access token past its expiry is refreshed before the
 * request leaves. A step-up asks for the scopes held and those demanded, at most
 * `OAuth.MAX_STEP_UPS` times a request, and never for scopes already asked for: a server that
 * keeps refusing gets its 403 back, not a loop of sign-ins. The SDK (`@modelcontextprotocol/client`)
 * is loaded with the first sign-in, so a toolset that signs in to nothing needs none of it.
 */
import type * as Sdk from "@modelcontextprotocol/client"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as MutableRef from "effect/MutableRef"
import * as Semaphore from "effect/Semaphore"
import { messageOf } from "../../../core/ToolFailure.ts"
import * as Hosts from "../../Hosts.ts"
import * as OAuth from "../../OAuth.ts"
import type * as TokenStore from "../../TokenStore.ts"
import * as Provider from "./provider.ts"
import * as OAuthUrls from "./urls.ts"
import * as Redact from "../redact.ts"

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>

let sdk: Promise<typeof Sdk> | undefined
const loadSdk = () => sdk ??= import("@modelcontextprotocol/client")

/**
 * What a server's sign-in needs: the entry's name and URL, its `oauth` options, the toolset's
 * `authorize` and token store, and the hosts its authorization server may be reached at.
 */
export interface Env {
  readonly server: string
  readonly url: string
  readonly options: OAuth.ServerOptions
  readonly authorize: OAuth.Authorize
  readonly store: TokenStore.TokenStore
  readonly allowed: ReadonlyArray<string>
  readonly publicOnly: boolean
}

/**
 * A server's sign-in: the bearer its requests carry, and the wrapper its transport's `fetch` goes
 * through.
 */
export interface Session {
  readonly bearer: () => string | undefined
  readonly wrap: (next: Fetch) => Fetch
}

interface Challenge {
  readonly resourceMetadataUrl?: URL | undefined
  readonly scope?: string | undefined
  readonly error?: string | undefined
}

// The SDK, or the sentence saying it must be installed.
const sdkFor = (server: string) =>
  Effect.tryPromise({
    try: loadSdk,
    catch: () =>
      new OAuth.SignInFailed({
        server,
        reason: "signing in needs @modelcontextprotocol/client, an optional peer dependency: install it"
      })
  })

const failed = (server: string) => (error: unknown) =>
  error instanceof OAuth.SignInFailed ? error
    : new OAuth.SignInFailed({ server, reason: Redact.text(messageOf(error)) })

// The authorization server's requests: each host checked like the server's own (with no
// allowedHosts, any host at a public address), no bearer, and redirects checked at every hop.
const authorizationFetch = (env: Env): Fetch => (input, init) => {
  const url = new URL(input)
  return Hosts.guardedFetch({
    allowed: env.publicOnly ? [url.host] : env.allowed,
    publicOnly: env.publicOnly,
    url,
    bearer: () => undefined,
    secretHeaders: []
  })(url, init)
}

// The URL the person came back to, checked: ours, with our state, carrying a code.
const codeFrom = (back: URL, options: OAuth.ServerOptions, state: string) => {
  const expected = new URL(options.redirectUrl)
  if (back.origin !== expected.origin || back.pathname !== expected.pathname) {
    return Effect.fail(`the authorization answered a URL other than the redirectUrl`)
  }
  const error = back.searchParams.get("error")
  if (error !== null) return Effect.fail(`the authorization server refused the authorization (${error})`)
  if (back.searchParams.get("state") !== state) {
    return Effect.fail("the authorization answer's state is not this sign-in's, so it was not used")
  }
  const code = back.searchParams.get("code")
  return code === null ? Effect.fail("the authorization answer carries no code") : Effect.succeed(code)
}

const covers = (sdkModule: typeof Sdk, held: string | undefined, wanted: string | undefined) =>
  !sdkModule.isStrictScopeSuperset(wanted, held)

// What one server's sign-in holds: the access token of the moment, the scopes last asked for, the
// permit sign-ins take one at a time, and how to run an Effect from the transport's Promise world.
interface State {
  readonly env: Env
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly provider: Provider.Env
  readonly current: MutableRef.MutableRef<Provider.Current | undefined>
  readonly asked: MutableRef.MutableRef<string | undefined>
  readonly permit: Semaphore.Semaphore
  readonly asFetch: Fetch
  readonly load: Effect.Effect<void>
}

const auth = (state: State, sdkModule: typeof Sdk, provider: Sdk.OAuthClientProvider, options: Sdk.AuthOptions) =>
  Effect.tryPromise({ try: () => sdkModule.auth(provider, options), catch: failed(state.env.server) })

// One attempt: the SDK's steps until it answers REDIRECT, the person through `authorize`, then the
// code exchanged. A refresh ends at the first answer.
const attempt = (
  state: State,
  challenge: Challenge,
  scope: string | undefined,
  force: boolean,
  mayRegisterAgain = true
): Effect.Effect<void, OAuth.SignInFailed> =>
  Effect.gen(function*() {
    const { env } = state
    const sdkModule = yield* sdkFor(env.server)
    const own = Provider.attempt()
    const provider = Provider.make(state.provider, own)
    const common = {
      serverUrl: env.url,
      fetchFn: state.asFetch,
      ...(challenge.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: challenge.resourceMetadataUrl }),
      ...(scope === undefined ? {} : { scope })
    }
    if (scope !== undefined) MutableRef.set(state.asked, scope)
    const first = yield* auth(state, sdkModule, provider, { ...common, forceReauthorization: force })
    if (first === "AUTHORIZED") return
    const url = own.authorizationUrl
    if (url === undefined) {
      return yield* new OAuth.SignInFailed({ server: env.server, reason: "no authorization URL was made" })
    }
    // The URL itself, whatever the metadata said: the person's browser opens nothing else.
    const refused = OAuthUrls.refusal(url, "authorization endpoint")
    if (refused !== undefined) return yield* new OAuth.SignInFailed({ server: env.server, reason: refused })
    const back = yield* Effect.mapError(
      env.authorize(url),
      (e) =>
        new OAuth.SignInFailed({ server: env.server, reason: `the authorization did not complete (${messageOf(e)})` })
    )
    // A client registered for fewer scopes than it now asks for (the SDK registers with the scopes of
    // the moment, and a server may hold a client to them): registered again, once, with these.
    if (
      mayRegisterAgain && env.options.clientId === undefined && back.searchParams.get("error") === "invalid_scope" &&
      back.searchParams.get("state") === own.state
    ) {
      yield* Effect.tryPromise({
        try: async () => provider.invalidateCredentials?.("client"),
        catch: failed(env.server)
      })
      return yield* attempt(state, challenge, scope, true, false)
    }
    const code = yield* Effect.mapError(
      codeFrom(back, env.options, own.state),
      (reason) => new OAuth.SignInFailed({ server: env.server, reason })
    )
    const iss = back.searchParams.get("iss")
    yield* auth(state, sdkModule, provider, { ...common, authorizationCode: code, ...(iss === null ? {} : { iss }) })
  })

// A sign-in unless another one already replaced the token the refused request carried.
const signIn = (
  state: State,
  challenge: Challenge,
  sent: string | undefined,
  scope: string | undefined,
  force: boolean
) =>
  state.permit.withPermits(1)(
    Effect.suspend(() => {
      const now = MutableRef.get(state.current)
      return !force && now !== undefined && now.token !== sent ? Effect.void : attempt(state, challenge, scope, force)
    })
  )

const challengeOf = (state: State, response: Response) =>
  Effect.map(
    sdkFor(state.env.server),
    (sdkModule) => ({ sdkModule, challenge: sdkModule.extractWWWAuthenticateParams(response) })
  )

const send = (next: Fetch, input: string | URL, init: RequestInit | undefined) =>
  Effect.tryPromise({ try: () => next(input, init), catch: (e) => e })

const discard = (response: Response) => Effect.promise(() => response.body?.cancel() ?? Promise.resolve())

// Before a request leaves: an access token past its expiry is refreshed while it can be.
const fresh = (state: State) =>
  Effect.gen(function*() {
    yield* state.load
    const now = yield* Clock.currentTimeMillis
    const held = MutableRef.get(state.current)
    if (held?.expiresAt !== undefined && held.expiresAt <= now && held.refreshable) {
      yield* Effect.ignore(signIn(state, {}, held.token, undefined, false))
    }
  })

// One request: sent; on a 401 signed in and sent again; on a 403 insufficient_scope stepped up and
// sent again, a bounded number of times and never for scopes already asked for.
const request = (state: State, next: Fetch, input: string | URL, init: RequestInit | undefined) =>
  Effect.gen(function*() {
    yield* fresh(state)
    const token = () => MutableRef.get(state.current)?.token
    let sent = token()
    let response = yield* send(next, input, init)
    if (response.status === 401) {
      const { challenge, sdkModule } = yield* challengeOf(state, response)
      yield* discard(response)
      const scope = challenge.scope === undefined ? undefined
        : sdkModule.computeScopeUnion(MutableRef.get(state.current)?.scope, challenge.scope)
      yield* signIn(state, challenge, sent, scope, false)
      sent = token()
      response = yield* send(next, input, init)
    }
    for (let stepUps = 0; response.status === 403 && stepUps < OAuth.MAX_STEP_UPS; stepUps++) {
      const { challenge, sdkModule } = yield* challengeOf(state, response)
      if (challenge.error !== "insufficient_scope") break
      const held = sdkModule.computeScopeUnion(MutableRef.get(state.current)?.scope, MutableRef.get(state.asked))
      const wanted = sdkModule.computeScopeUnion(held, challenge.scope)
      // Asking again for scopes already asked for cannot change the answer.
      if (covers(sdkModule, held, wanted)) break
      yield* discard(response)
      yield* signIn(state, challenge, sent, wanted, true)
      sent = token()
      response = yield* send(next, input, init)
    }
    return response
  })

// The access token the store holds for the server, read once, before the first request.
const loader = (env: Env, current: MutableRef.MutableRef<Provider.Current | undefined>) => {
  let loaded = false
  return Effect.suspend(() =>
    loaded ? Effect.void : Effect.map(Effect.orElseSucceed(env.store.latest(env.url), () => undefined), (entry) => {
      loaded = true
      if (MutableRef.get(current) === undefined) {
        MutableRef.set(current, Provider.currentOf(entry?.credentials.tokens, entry?.credentials.expiresAt))
      }
    })
  )
}

/**
 * A server's sign-in, starting from what the store holds for it.
 */
export const make = (env: Env): Effect.Effect<Session> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const run = Effect.runPromiseWith(context)
    const current = MutableRef.make<Provider.Current | undefined>(undefined)
    const state: State = {
      env,
      run,
      current,
      asked: MutableRef.make<string | undefined>(undefined),
      permit: yield* Semaphore.make(1),
      asFetch: authorizationFetch(env),
      load: loader(env, current),
      provider: {
        url: env.url,
        options: env.options,
        store: env.store,
        current,
        run: (effect) => run(effect),
        // The toolset's clock, the one `fresh` reads expiries against.
        now: () => Effect.runSyncWith(context)(Clock.currentTimeMillis)
      }
    }
    return {
      bearer: () => MutableRef.get(current)?.token,
      wrap: (next) => (input, init) => run(request(state, next, input, init))
    }
  })
