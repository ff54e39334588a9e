/**
 * The resources and prompts of a toolset's remote servers, reached by the same rules as its tools.
 *
 * A server offers more than tools: documents to read (resources) and message templates to fill in
 * (prompts). An agent reads them through the toolset, so the toolset's rules hold for them too: a
 * read and a prompt are requests the policy sees and can deny (as `resources/read` and
 * `prompts/get`), each has the server's deadline, each goes over the server's connection pool (in
 * whichever revision it speaks), and a prompt's name is projected like a tool's,
 * `${server}__${prompt}`. This module names their shapes; `McpToolset` reaches them.
 *
 * @since 0.1.0
 */

/**
 * A resource a server lists, with the key of the server that lists it.
 *
 * @example
 * ```ts
 * import type { McpResources } from "effect-surface/client"
 * const readme: McpResources.Resource = { server: "docs", uri: "file:///README.md", name: "README", mimeType: "text/markdown" }
 * ```
 *
 * @since 0.1.0
 */
export interface Resource {
  /** The server's key: the prefix of its tools' names, and what `readResource` takes. */
  readonly server: string
  readonly uri: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
}

/**
 * One piece of a read resource: text or a base64 blob, with its URI.
 *
 * @example
 * ```ts
 * import type { McpResources } from "effect-surface/client"
 * const piece: McpResources.Content = { uri: "file:///README.md", mimeType: "text/markdown", text: "# Hello" }
 * ```
 *
 * @since 0.1.0
 */
export interface Content {
  readonly uri: string
  readonly mimeType?: string | undefined
  readonly text?: string | undefined
  readonly blob?: string | undefined
}

/**
 * A prompt a server lists, named as the toolset names it.
 *
 * @example
 * ```ts
 * import type { McpResources } from "effect-surface/client"
 * const prompt: McpResources.Prompt = {
 *   name: "docs__summarize",
 *   server: "docs",
 *   prompt: "summarize",
 *   arguments: [{ name: "topic", required: true }]
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Prompt {
  /** The projected name, `${server}__${prompt}`, that `getPrompt` takes. */
  readonly name: string
  readonly server: string
  /** The prompt's own name on its server. */
  readonly prompt: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly arguments?:
    | ReadonlyArray<
      { readonly name: string; readonly description?: string | undefined; readonly required?: boolean | undefined }
    >
    | undefined
}

/**
 * A prompt filled in: its messages, as the server wrote them.
 *
 * @example
 * ```ts
 * import type { McpResources } from "effect-surface/client"
 * const filled: McpResources.Messages = { messages: [{ role: "user", content: { type: "text", text: "Summarize X" } }] }
 * ```
 *
 * @since 0.1.0
 */
export interface Messages {
  readonly description?: string | undefined
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: { readonly [key: string]: unknown } }>
}

/**
 * A resource template a server lists: the URIs it can read that no listing could hold (one per
 * record, per day…), with the key of the server that lists it. Fill the template in and read the URI
 * with `readResource`.
 *
 * @example
 * ```ts
 * import type { McpResources } from "effect-surface/client"
 * const byId: McpResources.ResourceTemplate = { server: "docs", uriTemplate: "docs://page/{id}", name: "page" }
 * ```
 *
 * @since 0.1.0
 */
export interface ResourceTemplate {
  /** The server's key, what `readResource` takes. */
  readonly server: string
  /** An RFC 6570 URI template. */
  readonly uriTemplate: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
}
