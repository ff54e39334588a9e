// The little of oidc-provider's API the authorization tests use (the package ships no types).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  interface Grant {
    addOIDCScope(scope: string): void
    addResourceScope(resource: string, scope: string): void
    rejectResourceScope(resource: string, scope: string): void
    save(): Promise<string>
  }

  interface InteractionDetails {
    readonly prompt: { readonly name: string; readonly details: Record<string, unknown> }
    readonly params: Record<string, unknown>
    readonly session?: { readonly accountId: string }
    readonly grantId?: string
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    readonly issuer: string
    readonly Grant: {
      new(fields: { readonly accountId: string; readonly clientId: string }): Grant
      find(id: string): Promise<Grant | undefined>
    }
    callback(): (request: IncomingMessage, response: ServerResponse) => void
    on(event: string, listener: (ctx: never) => void): this
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { readonly mergeWithLastSubmission?: boolean }
    ): Promise<void>
  }
}
