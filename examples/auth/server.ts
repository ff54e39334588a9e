// A surface behind an OAuth 2.1 resource server: `notes:read` sees the notes, `notes:write` may add
// one, and a tool's handler reads who is calling. AUTH_ISSUER names the issuer whose tokens are accepted.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Config, Effect, Layer, Schema, SubscriptionRef } from "effect"
import { Client, Expose, Identity, Implementation, Surface, Tools } from "effect-surface"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"

const Notes = Surface.make({
  cells: { latest: Surface.cell(Schema.String, "") },
  procedures: { notes: { add: { input: Schema.String, output: Schema.String, mutates: true } } }
})

// The expose map says what crosses, and which scope each member needs.
const expose = Expose.make(Notes, {
  cells: { latest: { scope: "notes:read" } },
  procedures: { "notes.add": { scope: "notes:write" } }
})

const program = Effect.gen(function*() {
  const issuer = yield* Config.String("AUTH_ISSUER")
  const latest = yield* SubscriptionRef.make("")
  const notes = Implementation.make(Notes, {
    cells: { latest },
    procedures: { notes: { add: (text) => Effect.as(SubscriptionRef.set(latest, text), "noted") } }
  })
  // Who is calling: the token's subject, client, scopes and claims (`local` where none was verified).
  const whoami = Tools.make({
    description: "Say who the server takes you for.",
    mutates: false,
    handler: () => Effect.map(Identity.current, (me) => `${me.subject} via ${me.clientId}: ${me.scopes.join(" ")}`)
  })
  yield* McpHttp.serve({
    core: { surface: Notes, expose },
    tools: { whoami },
    scopes: { tools: { whoami: "notes:read" } }, // what the expose map does not name
    client: Effect.succeed({ core: Client.erase(Client.directDispatch(notes)), clients: {} }),
    http: { port: 3000 }
  }).pipe(
    Effect.provide(
      McpAuth.layer({ scopesSupported: ["notes:read", "notes:write"] }).pipe(
        Layer.provide(McpTokenVerifier.layerJwt({ issuer }))
      )
    )
  )
  yield* Effect.log(`tokens checked against ${issuer}`)
  return yield* Effect.never
})

if (import.meta.main) NodeRuntime.runMain(Effect.scoped(program))
