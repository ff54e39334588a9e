// The workload a new user writes first, served alone over stdio by each competitor: one tool,
// `add({ a, b })` answering `{ sum }`. Ours is a one-procedure surface on the public API; the raw
// SDK peer is the low-level `Server` advertising the same tool and doing the same work (check the
// arguments, add, frame JSON text plus `structuredContent`); effect/ai serves it as a Toolkit.
// Plain values only: the raw peer must not load `effect` by importing this.

export const ADD_TOOL = "math_add"
export const ADD_ARGS = { a: 2, b: 3 } as const
export const ADD_ANSWER = { sum: 5 } as const
export const ADD_DESCRIPTION = "Add two numbers."

/** The one implementation every competitor calls. */
export const add = (input: { readonly a: number; readonly b: number }): { readonly sum: number } => ({
  sum: input.a + input.b
})
