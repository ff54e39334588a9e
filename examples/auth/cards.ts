// A procedure that authorizes per object: anyone may pin a card, only its author may remove it. It
// reads its caller with `Identity.current` — a token's subject behind a resource server, `local`
// on stdio, the command line, or HTTP served without one — so its type says it needs
// `Identity.Identity`, one of the caller services every face provides on each call.
import { Effect, Ref, Schema } from "effect"
import { Identity, Implementation, Store, Surface } from "effect-surface"

export class NotYourCard extends Schema.TaggedError<NotYourCard>()("NotYourCard", {
  id: Schema.String,
  author: Schema.String
}) {
  override get message(): string {
    return `only ${this.author} may remove card ${this.id}`
  }
}

export class NoSuchCard extends Schema.TaggedError<NoSuchCard>()("NoSuchCard", { id: Schema.String }) {}

export const Card = Schema.Struct({ author: Schema.String, text: Schema.String })

export const Cards = Surface.make({
  collections: { cards: Surface.collection(Schema.String, Card) },
  procedures: {
    card: {
      pin: { input: Schema.Struct({ text: Schema.String }), output: Schema.Struct({ id: Schema.String }) },
      remove: { input: Schema.Struct({ id: Schema.String }), error: Schema.Union([NotYourCard, NoSuchCard]) }
    }
  }
})

export const makeCards = (pinned: Iterable<readonly [string, typeof Card.Type]> = []) =>
  Effect.gen(function*() {
    const cards = yield* Store.make<string, typeof Card.Type>(pinned)
    const count = yield* Ref.make(0)
    return Implementation.make(Cards, {
      collections: { cards },
      procedures: {
        card: {
          pin: ({ text }) =>
            Effect.gen(function*() {
              const me = yield* Identity.current
              const id = `c${yield* Ref.updateAndGet(count, (n) => n + 1)}`
              yield* cards.set(id, { author: me.subject, text })
              return { id }
            }),
          remove: ({ id }) =>
            Effect.gen(function*() {
              const me = yield* Identity.current
              const card = yield* cards.get(id)
              if (card._tag === "None") return yield* new NoSuchCard({ id })
              if (card.value.author !== me.subject) return yield* new NotYourCard({ id, author: card.value.author })
              yield* cards.remove(id)
            })
        }
      }
    })
  })
