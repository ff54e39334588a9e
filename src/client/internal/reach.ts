/**
 * A toolset's reads and prompts: listed from every remote server, and each read or prompt sent down
 * the same path as a call — the policy first, then the server's pool under its deadline.
 *
 * A listing is asked of the servers when it is wanted (a server that cannot answer offers nothing
 * and is logged, the others still answer); every entry is decoded, and one that is malformed is left
 * out. A read's and a prompt's answer is decoded before it is handed back, so a caller never holds a
 * shape the server made up.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Option from "effect/Option"
import type * as Approval from "../../core/Approval.ts"
import type * as Config from "../Config.ts"
import { type CallError, McpProtocolError, PolicyDenied, UnknownTool } from "../Errors.ts"
import * as Names from "../Names.ts"
import * as Policy from "../Policy.ts"
import type * as Resources from "../Resources.ts"
import type * as Link from "./link.ts"
import * as Redact from "./redact.ts"

/** What the reads and prompts are reached through. */
export interface Env {
  readonly links: Effect.Effect<ReadonlyArray<Link.Link>>
  readonly options: Config.Options<any>
  readonly approval: Option.Option<Approval.Approval["Service"]>
}

const MAX_PAGES = 100

const ResourceSchema = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String)
})
const TemplateSchema = Schema.Struct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String)
})
const PromptSchema = Schema.Struct({
  name: Schema.NonEmptyString,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  arguments: Schema.optionalKey(
    Schema.Array(Schema.Struct({
      name: Schema.String,
      description: Schema.optionalKey(Schema.String),
      required: Schema.optionalKey(Schema.Boolean)
    }))
  )
})
const Page = Schema.Struct({ nextCursor: Schema.optionalKey(Schema.String) })
const ReadSchema = Schema.Struct({
  contents: Schema.Array(Schema.Struct({
    uri: Schema.String,
    mimeType: Schema.optionalKey(Schema.String),
    text: Schema.optionalKey(Schema.String),
    blob: Schema.optionalKey(Schema.String)
  }))
})
const MessagesSchema = Schema.Struct({
  description: Schema.optionalKey(Schema.String),
  messages: Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.Record(Schema.String, Schema.Unknown) }))
})

const decodePage = Schema.decodeUnknownResult(Page)

const remoteOnly = (links: ReadonlyArray<Link.Link>) => links.filter((link) => link.wired.config.type !== "local")

// Every page of one server's listing of `field`, each entry decoded (a malformed one left out).
const listed = <A>(
  link: Link.Link,
  method: string,
  field: string,
  decode: (u: unknown) => Result.Result<A, unknown>
): Effect.Effect<ReadonlyArray<A>> =>
  Effect.gen(function*() {
    const found: Array<A> = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = yield* link.request(
        link.wired.key,
        method,
        cursor === undefined ? {} : { cursor },
        link.wired.timeoutMs
      )
      const entries = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>)[field]
        : undefined
      for (const entry of Array.isArray(entries) ? entries : []) {
        const decoded = decode(entry)
        if (Result.isSuccess(decoded)) found.push(decoded.success)
      }
      const next = decodePage(answer)
      cursor = Result.isSuccess(next) ? next.success.nextCursor : undefined
      if (cursor === undefined) break
    }
    return found
  }).pipe(
    Effect.catch((error) =>
      Effect.as(
        Effect.logDebug(
          Redact.text(`MCP server "${link.wired.config.name}" did not answer ${method}: ${error.message}`)
        ),
        []
      )
    )
  )

/**
 * Every remote server's resources, in server order.
 */
export const resources = (env: Env): Effect.Effect<ReadonlyArray<Resources.Resource>> =>
  Effect.flatMap(env.links, (links) =>
    Effect.map(
      Effect.forEach(remoteOnly(links), (link) =>
        Effect.map(
          listed(link, "resources/list", "resources", Schema.decodeUnknownResult(ResourceSchema)),
          (found) => found.map((resource): Resources.Resource => ({ server: link.wired.key, ...resource }))
        ), { concurrency: "unbounded" }),
      (perServer) => perServer.flat()
    ))

/**
 * Every remote server's resource templates (the URIs it can read that no listing could hold), in
 * server order.
 */
export const resourceTemplates = (env: Env): Effect.Effect<ReadonlyArray<Resources.ResourceTemplate>> =>
  Effect.flatMap(env.links, (links) =>
    Effect.map(
      Effect.forEach(remoteOnly(links), (link) =>
        Effect.map(
          listed(link, "resources/templates/list", "resourceTemplates", Schema.decodeUnknownResult(TemplateSchema)),
          (found) => found.map((template): Resources.ResourceTemplate => ({ server: link.wired.key, ...template }))
        ), { concurrency: "unbounded" }),
      (perServer) => perServer.flat()
    ))

/**
 * Every remote server's prompts, named `${server}__${prompt}`.
 */
export const prompts = (env: Env): Effect.Effect<ReadonlyArray<Resources.Prompt>> =>
  Effect.flatMap(env.links, (links) =>
    Effect.map(
      Effect.forEach(remoteOnly(links), (link) =>
        Effect.map(
          listed(link, "prompts/list", "prompts", Schema.decodeUnknownResult(PromptSchema)),
          (found) =>
            found.map(({ name, ...rest }): Resources.Prompt => ({
              name: Names.project(link.wired.key, name),
              server: link.wired.key,
              prompt: name,
              ...rest
            }))
        ), { concurrency: "unbounded" }),
      (perServer) => perServer.flat()
    ))

// One request the policy has allowed, under the server's deadline (or the caller's), decoded. The
// policy sees it as `name`; its errors name it as `label` (a read by its URI, not like a tool).
const send = <S extends Schema.Top & { readonly DecodingServices: never }>(
  env: Env,
  link: Link.Link,
  name: string,
  method: string,
  params: { readonly [key: string]: unknown },
  schema: S,
  timeoutMs: number | undefined,
  label: string = name
): Effect.Effect<S["Type"], CallError> => {
  const server = link.wired.config.name
  const decode = Schema.decodeUnknownResult(schema)
  return Effect.andThen(
    Policy.gate(env.options.policy, { toolName: name, server, tool: method, args: params }, {
      approval: env.approval
    }).pipe(Effect.mapError((denied) => label === name ? denied : new PolicyDenied({ ...denied, name: label }))),
    Effect.flatMap(
      link.request(label, method, params, timeoutMs ?? link.wired.timeoutMs),
      (answer) =>
        Result.match(decode(answer), {
          onSuccess: Effect.succeed,
          onFailure: (error) =>
            Effect.fail(
              new McpProtocolError({
                name: label,
                server,
                code: -32603,
                reason: `its ${method} answer is malformed: ${error.message}`
              })
            )
        })
    )
  )
}

const linkOf = (links: ReadonlyArray<Link.Link>, key: string) =>
  remoteOnly(links).find((link) => link.wired.key === key)

/**
 * Read `uri` from the server keyed `server`; the policy sees it as a `resources/read` request named
 * `${server}__resources/read`, and a refusal names the read (`resources/read of <uri>`).
 */
export const read = (env: Env, server: string, uri: string, timeoutMs?: number) =>
  Effect.flatMap(env.links, (links): Effect.Effect<ReadonlyArray<Resources.Content>, CallError> => {
    const link = linkOf(links, server)
    const name = `${server}${Names.SEPARATOR}resources/read`
    if (link === undefined) return Effect.fail(new UnknownTool({ name }))
    return Effect.map(
      send(env, link, name, "resources/read", { uri }, ReadSchema, timeoutMs, `resources/read of ${uri}`),
      (read) => read.contents
    )
  })

/**
 * Fill in the prompt named `name` (as `prompts` names it) with `args`; the policy sees it as a
 * `prompts/get` request under the prompt's name.
 */
export const get = (
  env: Env,
  name: string,
  args: { readonly [key: string]: string },
  timeoutMs?: number
): Effect.Effect<Resources.Messages, CallError> =>
  Effect.gen(function*() {
    const links = remoteOnly(yield* env.links)
    // The name as projected plainly; a name the projection rewrote is found in the servers' listings.
    const plain = links.flatMap((link) => {
      const prefix = `${link.wired.key}${Names.SEPARATOR}`
      const prompt = name.slice(prefix.length)
      return name.startsWith(prefix) && Names.project(link.wired.key, prompt) === name ? [{ link, prompt }] : []
    })[0]
    const found = plain ?? (yield* Effect.map(prompts(env), (all) => {
      const listed = all.find((prompt) => prompt.name === name)
      const link = listed === undefined ? undefined : links.find((candidate) => candidate.wired.key === listed.server)
      return listed === undefined || link === undefined ? undefined : { link, prompt: listed.prompt }
    }))
    if (found === undefined) return yield* new UnknownTool({ name })
    return yield* send(
      env,
      found.link,
      name,
      "prompts/get",
      { name: found.prompt, arguments: args },
      MessagesSchema,
      timeoutMs
    )
  })
