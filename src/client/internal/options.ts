/**
 * Every refusal a toolset's options are owed before anything is spawned or dialled.
 *
 * Options come from code, but often from code that builds them out of configuration: a `tools: {}`
 * read from a file, a policy object missing its `decide`, a `roots` entry with no `uri`. Each would
 * otherwise fail later, somewhere deep, after servers were started — as a `TypeError`, for somebody
 * else. So each option's shape is checked here, and the first that is wrong is refused with a
 * sentence naming the option and what it takes. Options that cannot work together are refused here
 * too: a credential resolver with no session to scope it, a filter that both allows and blocks.
 */
import * as Context from "effect/Context"
import * as Predicate from "effect/Predicate"

const has = (options: object, key: string) => key in options && (options as Record<string, unknown>)[key] !== undefined

const isStrings = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.every((item) => typeof item === "string")

const sessionRule = (what: string) =>
  `${what} needs a session: what it resolves is fixed onto the connection, so a toolset built with it belongs to one ` +
  `session and must not serve another user. Pass \`session\` and build one toolset per session.`

const toolsRule = (tools: unknown): string | undefined => {
  if (tools === undefined) return undefined
  if (!Predicate.isObject(tools)) return "tools takes { allow: [names] } or { block: [names] }"
  const allow = has(tools, "allow")
  const block = has(tools, "block")
  if (allow && block) {
    return "tools takes allow or block, never both: say which tools to keep, or which to leave out."
  }
  if (!allow && !block) {
    return "tools takes { allow: [names] } or { block: [names] }; it names neither (to keep every tool, leave tools out)"
  }
  const key = allow ? "allow" : "block"
  return isStrings((tools as Record<string, unknown>)[key]) ? undefined : `tools.${key} must be a list of tool names`
}

const millisRule = (key: string, value: unknown): string | undefined =>
  value === undefined || (typeof value === "number" && Number.isFinite(value) && value > 0) ? undefined
    : `${key} must be a positive number of milliseconds, got ${String(value)}`

const disclosureRule = (disclosure: unknown): string | undefined => {
  if (disclosure === undefined) return undefined
  if (!Predicate.isObject(disclosure)) return "disclosure takes { budget?, alwaysLoad?, maxTools? }"
  const { alwaysLoad, budget, maxTools } = disclosure as Record<string, unknown>
  if (budget !== undefined && !(typeof budget === "number" && Number.isFinite(budget) && budget >= 0))
    return `disclosure.budget must be a number of tokens, got ${String(budget)}`
  if (maxTools !== undefined && !(Number.isInteger(maxTools) && (maxTools as number) > 0))
    return `disclosure.maxTools must be a whole number above 0, got ${String(maxTools)}`
  if (alwaysLoad !== undefined && !isStrings(alwaysLoad)) return "disclosure.alwaysLoad must be a list of server names"
  return undefined
}

const rootsRule = (roots: unknown): string | undefined => {
  if (roots === undefined || typeof roots === "function") return undefined
  const valid = Array.isArray(roots) &&
    roots.every((root) => typeof field(root, "uri") === "string" && oneOf(field(root, "name"), ["string", "undefined"]))
  return valid ? undefined : "roots must be a list of { uri, name? } with string values, or a function answering one"
}

const storageRule = (storage: unknown): string | undefined => {
  if (storage === undefined) return undefined
  const valid = Predicate.isObject(storage) && "list" in storage &&
    ["get", "save", "remove"].every((key) => typeof field(storage, key) === "function")
  return valid ? undefined
    : "storage must be a connection store (McpStoreSqlite.make, McpStore.makeMemory, or your own)"
}

const field = (value: unknown, key: string): unknown =>
  Predicate.isObject(value) ? (value as Record<string, unknown>)[key] : undefined

const oneOf = (value: unknown, types: ReadonlyArray<string>) => types.includes(typeof value)

// Each option's shape, in the order they are documented; the first sentence found is the refusal.
const shapeRules = (options: Record<string, unknown>): ReadonlyArray<string | undefined> => {
  const { allowedHosts, auth, caller, clientInfo, onDiagnostic, policy, stdio } = options
  return [
    allowedHosts === undefined || typeof allowedHosts === "function" || isStrings(allowedHosts) ? undefined
      : "allowedHosts must be a list of hosts (\"mcp.example.com\"), or a function that answers one",
    oneOf(auth, ["function", "undefined"]) ? undefined : "auth must be a function",
    toolsRule(options["tools"]),
    millisRule("timeoutMs", options["timeoutMs"]),
    millisRule("connectTimeoutMs", options["connectTimeoutMs"]),
    policy === undefined || typeof field(policy, "decide") === "function" ? undefined
      : "policy must be an object with a decide function",
    oneOf(onDiagnostic, ["function", "undefined"]) ? undefined : "onDiagnostic must be a function",
    stdio === undefined || (Predicate.isObject(stdio) && oneOf(field(stdio, "root"), ["string", "undefined"]))
      ? undefined
      : "stdio takes { root?: a directory }",
    rootsRule(options["roots"]),
    oneOf(options["elicit"], ["function", "undefined"]) ? undefined : "elicit must be a function",
    oneOf(options["sample"], ["function", "undefined"]) ? undefined : "sample must be a function",
    [undefined, "auto", "2026-07-28", "2025-11-25"].includes(options["protocol"] as string | undefined) ? undefined
      : "protocol must be \"auto\", \"2026-07-28\" or \"2025-11-25\"",
    clientInfo === undefined ||
      (typeof field(clientInfo, "name") === "string" && typeof field(clientInfo, "version") === "string")
      ? undefined
      : "clientInfo takes { name, version }, both strings",
    caller === undefined || Context.isContext(caller) ? undefined
      : "caller must be a Context of the caller services (Caller.none, or one of your own)",
    storageRule(options["storage"]),
    disclosureRule(options["disclosure"])
  ]
}

/**
 * Why these options cannot be used, as a sentence, or `undefined` when they can.
 */
export const refusal = (options: unknown): string | undefined => {
  if (!Predicate.isObject(options)) return "options must be an object"
  const shape = shapeRules(options).find((rule) => rule !== undefined)
  if (shape !== undefined) return shape
  const session = has(options, "session")
  if (options["auth"] !== undefined && !session) return sessionRule("auth")
  if (typeof options["allowedHosts"] === "function" && !session) return sessionRule("an allowedHosts resolver")
  return undefined
}
