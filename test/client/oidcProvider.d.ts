// oidc-provider ships no types: what the client's OAuth tests use of it, and nothing more.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  interface Grant {
    addOIDCScope(scope: string): void
    addResourceScope(resource: string, scope: string): void
    save(): Promise<string>
  }

  interface Interaction {
    readonly prompt: { readonly name: string; readonly details: unknown }
    readonly params: Record<string, unknown>
    readonly grantId?: string
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    on(event: string, listener: (ctx: never) => void): this
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { readonly mergeWithLastSubmission?: boolean }
    ): Promise<void>
    readonly Grant: {
      new(owner: { readonly accountId: string; readonly clientId: string }): Grant
      find(id: string): Promise<Grant | undefined>
    }
  }
}
