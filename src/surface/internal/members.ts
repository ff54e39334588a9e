/**
 * Helpers shared by the modules that build a client member by member.
 *
 * @since 0.1.0
 */
import { Effect, Option, Stream } from "effect"
import { LinkError } from "../../core/LinkError.ts"

/** The first element of a snapshot-first stream; a stream that ends empty is a closed link. */
export const firstOf = <A>(stream: Stream.Stream<A, LinkError>, what: string): Effect.Effect<A, LinkError> =>
  Effect.flatMap(
    Stream.runHead(stream),
    Option.match({
      onNone: () => Effect.fail(new LinkError({ phase: "closed", reason: `${what} ended without a value` })),
      onSome: Effect.succeed
    })
  )

/** Map the members a spec group declares, skipping any the source does not provide. */
export const mapMembers = <M, C>(
  members: { readonly [key: string]: M } | undefined,
  declared: object,
  f: (member: M, key: string) => C
): { readonly [key: string]: C } =>
  Object.fromEntries(Object.keys(declared).flatMap((key) => {
    const member = members !== undefined && Object.hasOwn(members, key) ? members[key] : undefined
    return member === undefined ? [] : [[key, f(member, key)]]
  }))
