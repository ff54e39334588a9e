// How big each reliability test runs. `npm test` runs them scaled down (the whole directory in well
// under a minute on two cores); `STRESS=1` (`npm run test:stress`) runs them at full size.

/** Whether this is the full-size run. */
export const stress = process.env["STRESS"] === "1"

/** The scaled size in `npm test`, the full one under `STRESS=1`. */
export const sized = <A>(scaled: A, full: A): A => stress ? full : scaled

/** A test's own time bound (ms), larger at full size. */
export const budget = (scaled: number, full: number): number => sized(scaled, full)
