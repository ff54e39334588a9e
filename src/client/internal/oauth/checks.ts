/**
 * The refusals an OAuth sign-in is owed at wiring time: an entry's `oauth` of the wrong shape, a
 * toolset that has servers to sign in to but no `authorize`, a token store that is not one. Each
 * would otherwise fail at the first 401, later and for somebody else.
 */
import * as Schema from "effect/Schema"
import type * as OAuth from "../../OAuth.ts"

/**
 * The shape of a server entry's `oauth`.
 */
export const ServerOptionsSchema = Schema.Struct({
  clientName: Schema.NonEmptyString,
  redirectUrl: Schema.String,
  clientMetadataUrl: Schema.optionalKey(Schema.String),
  clientId: Schema.optionalKey(Schema.NonEmptyString),
  clientSecret: Schema.optionalKey(Schema.String),
  scope: Schema.optionalKey(Schema.String)
})

/**
 * Why an entry's `oauth` cannot be used, or nothing.
 */
export const serverRefusal = (oauth: OAuth.ServerOptions): string | undefined => {
  if (!URL.canParse(oauth.redirectUrl)) return `"oauth.redirectUrl" is not a URL`
  const document = oauth.clientMetadataUrl
  if (document === undefined) return undefined
  const url = URL.canParse(document) ? new URL(document) : undefined
  return url?.protocol === "https:" && url.pathname !== "/" ? undefined
    : `"oauth.clientMetadataUrl" must be an https URL with a path (the client's metadata document)`
}

const isTokenStore = (value: unknown): boolean =>
  typeof value === "object" && value !== null &&
  ["get", "latest", "save", "remove"].every((key) => typeof (value as Record<string, unknown>)[key] === "function")

/**
 * Why the toolset's options cannot sign in to the servers that ask for it, or nothing.
 */
export const optionsRefusal = (
  signsIn: string | undefined,
  options: { readonly authorize?: unknown; readonly tokenStore?: unknown }
): string | undefined => {
  if (options.tokenStore !== undefined && !isTokenStore(options.tokenStore)) {
    return "tokenStore must be a token store (McpTokenStoreSqlite.make, McpTokenStore.makeMemory, or your own)"
  }
  if (signsIn !== undefined && typeof options.authorize !== "function") {
    return `server "${signsIn}" signs in with oauth, so the toolset needs authorize: a function that takes the person to the authorization URL and answers the URL they came back to`
  }
  return undefined
}
