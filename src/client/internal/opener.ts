/**
 * How a server's transport is opened, decided once before its first dial: the checks an entry
 * must pass before anything is spawned or contacted (its command inside its root, its host
 * allowed), and, for one that passes, the function each dial opens its transport with — a stdio
 * child handed to its server's reaper, an HTTP transport behind the guarded fetch and any OAuth
 * sign-in, or the caller's own transport.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { messageOf } from "../../core/ToolFailure.ts"
import type * as Config from "../Config.ts"
import * as Containment from "../Containment.ts"
import * as Diagnostic from "../Diagnostic.ts"
import * as Hosts from "../Hosts.ts"
import * as TokenStore from "../TokenStore.ts"
import * as Transports from "../Transports.ts"
import type * as Child from "./child.ts"
import * as OAuthSession from "./oauth/session.ts"

/** Opens the entry's transport for one dial, with the bearer of the moment. */
export type Open = (bearer: () => string | undefined) => Effect.Effect<Transports.Opened, never, Scope.Scope>

// The hosts an HTTP entry may reach: those `allowedHosts` names (the caller's choice, anywhere), or
// with none given the host its own URL names, at public addresses only.
const allowedHostsFor = (
  config: Config.StreamableHttp | Config.Sse,
  options: Config.Options<any>
): Effect.Effect<{ readonly allowed: ReadonlyArray<string>; readonly publicOnly: boolean }, string> => {
  const given = options.allowedHosts
  if (given === undefined) return Effect.succeed({ allowed: [new URL(config.url).host], publicOnly: true })
  if (typeof given !== "function") return Effect.succeed({ allowed: given, publicOnly: false })
  return Effect.suspend(() => {
    const answer = given(config.name, { session: options.session })
    return Effect.isEffect(answer) ? answer : Effect.succeed(answer)
  }).pipe(
    Effect.map((allowed) => ({ allowed, publicOnly: false })),
    Effect.catchCause((cause) => Effect.fail(`its allowedHosts could not be resolved (${messageOf(cause)})`))
  )
}

// An entry's OAuth sign-in, over the toolset's token store (or one of its own, in memory).
const signIn = (
  config: Config.StreamableHttp | Config.Sse,
  options: Config.Options<any>,
  allowed: ReadonlyArray<string>,
  publicOnly: boolean
): Effect.Effect<OAuthSession.Session | undefined> => {
  const oauth = config.oauth
  const authorize = options.authorize
  if (oauth === undefined || authorize === undefined) return Effect.succeed(undefined)
  return Effect.flatMap(
    options.tokenStore === undefined ? TokenStore.makeMemory : Effect.succeed(options.tokenStore),
    (store) =>
      OAuthSession.make({ server: config.name, url: config.url, options: oauth, authorize, store, allowed, publicOnly })
  )
}

/**
 * How this entry's transport is opened, or the diagnostic saying why it is not: a stdio command
 * outside its root, a host outside `allowedHosts` (or, with none given, an address that is not
 * public), an `allowedHosts` resolver that failed.
 */
export const opener = (
  wired: Config.Wired<Config.Remote>,
  options: Config.Options<any>,
  reaper: Child.Reaper
): Effect.Effect<Open, Diagnostic.Diagnostic> => {
  const config = wired.config
  switch (config.type) {
    case "stdio": {
      const root = config.root ?? options.stdio?.root
      return Effect.mapBoth(Containment.confine(config, root), {
        onFailure: (reason) => Diagnostic.stdioRefused(config.name, reason),
        onSuccess: (confined): Open => () => Transports.openStdio(config, confined, reaper)
      })
    }
    case "streamable-http":
    case "sse":
      return Effect.flatMap(
        Effect.mapError(
          allowedHostsFor(config, options),
          (reason) => Diagnostic.serverUnavailable(config.name, reason)
        ),
        ({ allowed, publicOnly }): Effect.Effect<Open, Diagnostic.Diagnostic> => {
          const url = new URL(config.url)
          if (!Hosts.allows(allowed, url)) return Effect.fail(Diagnostic.hostNotAllowed(config.name, url.host))
          const literal = publicOnly ? Hosts.unnamedRefusal(url) : undefined
          if (literal !== undefined)
            return Effect.fail(Diagnostic.hostNotAllowed(config.name, url.host, literal.message))
          return Effect.map(
            signIn(config, options, allowed, publicOnly),
            (session): Open => (bearer) =>
              Effect.succeed(Transports.openHttp(config, {
                allowed,
                publicOnly,
                bearer: session === undefined ? bearer : () => session.bearer() ?? bearer(),
                wrap: session?.wrap
              }))
          )
        }
      )
    case "transport":
      return Effect.succeed(() => Effect.sync(() => ({ transport: config.open() })))
  }
}
