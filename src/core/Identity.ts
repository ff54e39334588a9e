/**
 * Who is calling: the one answer every handler reads, whichever face the call came through.
 *
 * Over HTTP behind a resource server the caller is the subject of a verified bearer token — with
 * the client it used, the scopes it was granted and the token's claims — so a procedure can
 * authorize per object ("only the owner may close this"). Everywhere a call is not authenticated
 * (stdio, the command line, a test, HTTP served without authorization) the caller is `local`: an
 * explicit identity, unrestricted, never a missing one. Kept in the core beside `Caller` so every
 * face provides the same service and a handler never asks which face it runs under.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * A caller: where its identity came from, its subject, the client it called through, its scopes
 * and the verified claims (for a token; empty for `local`).
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 *
 * const ada: Identity.Principal = Identity.token({ subject: "ada", clientId: "board-cli", scopes: ["board:read"] })
 * Identity.allows(ada, "board:write") // false
 * ```
 *
 * @since 0.1.0
 */
export interface Principal {
  /** `Token`: a verified bearer token; `Local`: a caller that was not asked for one. */
  readonly _tag: "Token" | "Local"
  readonly subject: string
  readonly clientId: string
  readonly scopes: ReadonlyArray<string>
  readonly claims: { readonly [claim: string]: unknown }
}

/**
 * The caller of the request being served, as a service every face provides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Identity } from "effect-surface"
 *
 * const closeCard = (owner: string) =>
 *   Effect.gen(function*() {
 *     const me = yield* Identity.Identity
 *     return me.subject === owner ? "closed" : `only ${owner} may close this card`
 *   })
 * ```
 *
 * @since 0.1.0
 */
export class Identity extends Context.Service<Identity, Principal>()("effect-surface/Identity") {}

/**
 * The local caller: a process's own user, on a path with no authorization (stdio, the command line,
 * `Caller.none`). Unrestricted: every member is shown to it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Identity } from "effect-surface"
 *
 * declare const handler: Effect.Effect<string, never, Identity.Identity>
 * handler.pipe(Effect.provideService(Identity.Identity, Identity.local))
 * ```
 *
 * @since 0.1.0
 */
export const local: Principal = { _tag: "Local", subject: "local", clientId: "local", scopes: [], claims: {} }

/**
 * A caller proved by a verified token.
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 * const caller = Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"], claims: { email: "ada@example.com" } })
 * ```
 *
 * @since 0.1.0
 */
export const token = (fields: {
  readonly subject: string
  readonly clientId: string
  readonly scopes: ReadonlyArray<string>
  readonly claims?: { readonly [claim: string]: unknown }
}): Principal => ({ _tag: "Token", ...fields, claims: fields.claims ?? {} })

/**
 * Whether a caller may see and use a member that needs `scope` (none needed: every caller may).
 * The local caller may use everything.
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 * Identity.allows(Identity.local, "board:write") // true
 * Identity.allows(Identity.token({ subject: "s", clientId: "c", scopes: [] }), undefined) // true
 * ```
 *
 * @since 0.1.0
 */
export const allows = (principal: Principal, scope: string | undefined): boolean =>
  scope === undefined || principal._tag === "Local" || principal.scopes.includes(scope)

/**
 * The key of a caller's view: callers holding the same scopes see the same lists, so lists are
 * cached by this, never by token or subject.
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 * Identity.viewKey(Identity.token({ subject: "s", clientId: "c", scopes: ["b", "a"] })) // "a b"
 * ```
 *
 * @since 0.1.0
 */
export const viewKey = (principal: Principal): string =>
  principal._tag === "Local" ? "*" : [...new Set(principal.scopes)].sort().join(" ")

/**
 * The key of what a caller holds (a task, a parked call): the same caller, whichever request or
 * instance it comes through; a token's subject never mistaken for the local caller.
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 * Identity.holder(Identity.local) // "Local:local"
 * ```
 *
 * @since 0.1.0
 */
export const holder = (principal: Principal): string => `${principal._tag}:${principal.subject}`

/**
 * The caller of the request being served.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Identity } from "effect-surface"
 * const who = Effect.map(Identity.current, (me) => `${me.subject} via ${me.clientId}`)
 * ```
 *
 * @since 0.1.0
 */
export const current: Effect.Effect<Principal, never, Identity> = Effect.service(Identity)
