/**
 * Request guards compiled: a grant's `fail-when` conditions as one test of a call's arguments.
 *
 * A restriction narrows one argument, and the served schema says so; a request guard refuses a
 * combination (a large amount *in* one currency, a transfer with no memo) that no single argument's
 * schema can express. Conditions are tried in order after the schema check, the first that holds
 * refusing the call; the sentence it is refused with comes from the file (its `reason`, or the
 * condition spelled out), never from the arguments.
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Words from "../../core/internal/wording.ts"
import type * as GuardFile from "../GuardFile.ts"

/** A condition that cannot be kept: where in the guard file, and why. */
export interface Unkept {
  readonly at: string
  readonly reason: string
}

/** The reason the first condition that holds gives, or `undefined` when none holds. */
export type Test = (args: unknown) => string | undefined

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const holds = (matcher: GuardFile.Matcher, pattern: RegExp | undefined, given: boolean, value: unknown): boolean => {
  if (matcher.present === false) return !given
  if (!given) return false
  if (matcher.enum !== undefined && !matcher.enum.some((option) => option === value)) return false
  const number = typeof value === "number" ? value : undefined
  if (matcher.minimum !== undefined && (number === undefined || number < matcher.minimum)) return false
  if (matcher.maximum !== undefined && (number === undefined || number > matcher.maximum)) return false
  return pattern === undefined || (typeof value === "string" && pattern.test(value))
}

const told = (argument: string, matcher: GuardFile.Matcher): string => {
  if (matcher.present === false) return `"${argument}" is not given`
  const parts = [
    matcher.enum === undefined ? undefined
      : matcher.enum.length === 1 ? `is ${JSON.stringify(matcher.enum[0])}`
      : `is ${Words.values(matcher.enum)}`,
    matcher.minimum === undefined ? undefined : `is at least ${matcher.minimum}`,
    matcher.maximum === undefined ? undefined : `is at most ${matcher.maximum}`,
    matcher.pattern === undefined ? undefined : `matches /${matcher.pattern}/`
  ].filter((part) => part !== undefined)
  return `"${argument}" ${parts.length === 0 ? "is given" : parts.join(" and ")}`
}

/** The condition in words, for a refusal whose condition gives no reason of its own. */
export const describe = (at: string, condition: GuardFile.Condition): string =>
  `${at} holds: ${Object.entries(condition.match).map(([argument, matcher]) => told(argument, matcher)).join(", and ")}`

/**
 * The test of a tool's conditions, each argument it names checked against `named` (the locked
 * schema's arguments); `at` is the grant's place in the file (`grants.transfer`).
 */
export const compile = (
  at: string,
  conditions: ReadonlyArray<GuardFile.Condition>,
  named: ReadonlyArray<string>
): Result.Result<Test, Unkept> => {
  const compiled: Array<(args: Readonly<Record<string, unknown>>) => string | undefined> = []
  for (const [i, condition] of conditions.entries()) {
    const where = `${at}.fail-when[${i}]`
    const matchers: Array<readonly [string, GuardFile.Matcher, RegExp | undefined]> = []
    for (const [argument, matcher] of Object.entries(condition.match)) {
      if (!named.includes(argument))
        return Result.fail({ at: `${where}.match.${argument}`, reason: `the locked tool has no argument ${argument}` })
      const pattern = matcher.pattern === undefined ? undefined : Result.try(() =>
        new RegExp(matcher.pattern ?? "", "u")
      )
      if (pattern !== undefined && Result.isFailure(pattern))
        return Result.fail({ at: `${where}.match.${argument}.pattern`, reason: "it is not a regular expression" })
      matchers.push([argument, matcher, pattern?.success])
    }
    const reason = condition.reason ?? describe(where, condition)
    compiled.push((args) =>
      matchers.every(([argument, matcher, pattern]) =>
          holds(matcher, pattern, Object.hasOwn(args, argument), args[argument])
        )
        ? reason
        : undefined
    )
  }
  return Result.succeed((args) => {
    if (!isRecord(args)) return undefined
    for (const test of compiled) {
      const reason = test(args)
      if (reason !== undefined) return reason
    }
    return undefined
  })
}
