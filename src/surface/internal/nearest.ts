/**
 * The declared name a mistyped one was most likely meant to be, so a refusal can say "did you mean
 * …": a key that names nothing is almost always a slip of one or two letters, and the name it missed
 * is the fix. Only a close name is offered; a far one would send the reader the wrong way.
 *
 * @internal
 */

// Optimal string alignment: insertions, deletions, substitutions, and a swap of two neighbours
// (the commonest typo) each cost one.
const distance = (a: string, b: string): number => {
  let before: Array<number> = []
  let previous: Array<number> = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current: Array<number> = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] ?? 0) + 1)
      }
      current.push(best)
    }
    before = previous
    previous = current
  }
  return previous[b.length] ?? 0
}

// Close: at most a third of the longer name, and never more than three edits.
const closeEnough = (key: string, name: string, edits: number): boolean =>
  edits <= Math.min(3, Math.max(1, Math.floor(Math.max(key.length, name.length) / 3)))

/** The candidate closest to `key` when it is close (ties: the first), else `undefined`. */
export const nearest = (key: string, candidates: Iterable<string>): string | undefined => {
  let found: string | undefined
  let best = Infinity
  for (const name of candidates) {
    // Case is a slip too, but a cheaper one: compared folded, a case-only miss costs nothing.
    const edits = distance(key.toLowerCase(), name.toLowerCase())
    if (edits < best && closeEnough(key, name, edits)) {
      found = name
      best = edits
    }
  }
  return found
}
