// A hand-built authorization server for the resource server's hostile cases: RFC 8414 metadata and a
// JWKS on a free loopback port, an RS256 key it signs with (and rotates on demand), and every kind of
// bad token a client could send — signed wrong, for someone else, out of time, with `alg: none` or with
// the public key as an HMAC secret. It counts its JWKS fetches, so a test can see refetching bounded.
import { Effect } from "effect"
import * as Jose from "jose"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

export interface Issuer {
  readonly issuer: string
  readonly jwksFetches: () => number
  /** Answer the key set with this HTTP status (200: the keys; anything else: an empty error body). */
  readonly answerJwks: (status: number) => void
  /** A token signed with the current key: `claims` over the defaults (sub, client_id, scope, aud, exp). */
  readonly sign: (claims: Record<string, unknown>, options?: { readonly kid?: string }) => Promise<string>
  /** Sign with a fresh key published under a new `kid` (the old one is withdrawn). */
  readonly rotate: () => Promise<void>
  /** The hostile forms of an Authorization header, by name. */
  readonly hostile: (audience: string) => Promise<Record<string, string>>
  /** Stop answering (the server goes away). */
  readonly stop: () => Promise<void>
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

export const start = (): Effect.Effect<Issuer, never, import("effect").Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let key = await Jose.generateKeyPair("RS256", { extractable: true })
      let kid = "k1"
      let fetches = 0
      let jwksStatus = 200
      const server = NodeHttp.createServer((request, response) => {
        if (request.url === "/jwks") {
          fetches++
          if (jwksStatus !== 200) {
            response.statusCode = jwksStatus
            response.end()
            return
          }
          void Jose.exportJWK(key.publicKey).then((jwk) => {
            response.setHeader("content-type", "application/json")
            response.end(JSON.stringify({ keys: [{ ...jwk, kid, alg: "RS256", use: "sig" }] }))
          })
          return
        }
        if (request.url === "/.well-known/oauth-authorization-server") {
          response.setHeader("content-type", "application/json")
          response.end(JSON.stringify({
            issuer: issuerUrl,
            jwks_uri: `${issuerUrl}/jwks`,
            authorization_endpoint: `${issuerUrl}/authorize`,
            token_endpoint: `${issuerUrl}/token`,
            code_challenge_methods_supported: ["S256"]
          }))
          return
        }
        response.statusCode = 404
        response.end()
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const issuerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const now = () => Math.floor(Date.now() / 1000)
      const defaults = (audience: unknown) => ({
        sub: "ada",
        client_id: "board-cli",
        scope: "board:read",
        aud: audience as string,
        iat: now(),
        exp: now() + 600
      })
      const sign = (claims: Record<string, unknown>, options?: { readonly kid?: string }) =>
        new Jose.SignJWT({ ...defaults(claims["aud"]), ...claims })
          .setProtectedHeader({ alg: "RS256", kid: options?.kid ?? kid, typ: "at+jwt" })
          .setIssuer(typeof claims["iss"] === "string" ? claims["iss"] : issuerUrl)
          .sign(key.privateKey)
      const hostile = async (audience: string): Promise<Record<string, string>> => {
        const other = await Jose.generateKeyPair("RS256")
        const publicPem = await Jose.exportSPKI(key.publicKey)
        const body = { ...defaults(audience), iss: issuerUrl }
        return {
          empty: "",
          bareScheme: "Bearer",
          wrongScheme: `Basic ${Buffer.from("ada:secret").toString("base64")}`,
          twoTokens: "Bearer a.b.c d.e.f",
          notAJwt: "Bearer not-a-jwt-at-all",
          huge: `Bearer ${"a".repeat(10_000)}`,
          algNone: `Bearer ${b64({ alg: "none", typ: "JWT" })}.${b64(body)}.`,
          hmacWithPublicKey: `Bearer ${await new Jose.SignJWT(body).setProtectedHeader({ alg: "HS256", kid }).sign(
            new TextEncoder().encode(publicPem)
          )}`,
          expired: `Bearer ${await sign({ aud: audience, iat: now() - 7200, exp: now() - 3600 })}`,
          notYetValid: `Bearer ${await sign({ aud: audience, nbf: now() + 3600 })}`,
          wrongAudience: `Bearer ${await sign({ aud: "https://elsewhere.example.com/mcp" })}`,
          wrongIssuer: `Bearer ${await sign({ aud: audience, iss: "https://evil.example.com" })}`,
          unknownKid: `Bearer ${await new Jose.SignJWT(body).setProtectedHeader({ alg: "RS256", kid: "stranger" })
            .sign(other.privateKey)}`,
          badSignature: `Bearer ${(await sign({ aud: audience })).slice(0, -6)}AAAAAA`
        }
      }
      const issuer: Issuer = {
        issuer: issuerUrl,
        jwksFetches: () => fetches,
        answerJwks: (status) => {
          jwksStatus = status
        },
        sign,
        rotate: async () => {
          key = await Jose.generateKeyPair("RS256", { extractable: true })
          kid = `k${Number(kid.slice(1)) + 1}`
        },
        hostile,
        stop: () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      }
      return issuer
    }),
    (issuer) => Effect.promise(() => issuer.stop().catch(() => undefined))
  )
