// The example agent needs no model: a prompt is one line of a small command language.
//   read <path>             write <path> <text>       run <command> [args…]
//   tools                   call <tool> <json>        help
// Words split on spaces; "double quotes" keep spaces in one word (`\"` is a quote inside one).

export type Command =
  | { readonly _tag: "Read"; readonly path: string }
  | { readonly _tag: "Write"; readonly path: string; readonly text: string }
  | { readonly _tag: "Run"; readonly command: string; readonly args: ReadonlyArray<string> }
  | { readonly _tag: "Tools" }
  | { readonly _tag: "Call"; readonly tool: string; readonly args: unknown }
  | { readonly _tag: "Help"; readonly problem?: string | undefined }

export const usage = [
  "Commands:",
  "  read <path>            show a file, read through the editor",
  "  write <path> <text>    write text to a file through the editor (asks first)",
  "  run <command> [args…]  run a command in the editor's terminal (asks first)",
  "  tools                  list the tools of this session's MCP servers",
  "  call <tool> <json>     call one of them with JSON arguments (asks first)",
  "Paths are relative to the session's folder unless absolute; \"quotes\" keep spaces."
].join("\n")

/** The words of a line, and where the first `skip` of them end (for a rest-of-line argument). */
const words = (line: string): { readonly words: ReadonlyArray<string>; readonly ends: ReadonlyArray<number> } => {
  const out: Array<string> = []
  const ends: Array<number> = []
  let i = 0
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i]!)) i++
    if (i >= line.length) break
    let word = ""
    if (line[i] === "\"") {
      i++
      while (i < line.length && line[i] !== "\"") {
        if (line[i] === "\\" && line[i + 1] === "\"") i++
        word += line[i]!
        i++
      }
      i++
    } else {
      while (i < line.length && !/\s/.test(line[i]!)) word += line[i++]!
    }
    out.push(word)
    ends.push(Math.min(i, line.length))
  }
  return { words: out, ends }
}

const help = (problem: string): Command => ({ _tag: "Help", problem })

/** The command a prompt asks for; anything else is help, saying what was wrong. */
export const parse = (prompt: string): Command => {
  const line = prompt.trim()
  const { ends, words: w } = words(line)
  const [verb, first] = w
  const rest = (after: number) => line.slice(ends[after - 1] ?? line.length).trim()
  switch (verb?.toLowerCase()) {
    case undefined:
    case "help":
      return { _tag: "Help" }
    case "read":
      return first === undefined ? help("read needs a path") : { _tag: "Read", path: first }
    case "write": {
      if (first === undefined) return help("write needs a path and the text to write")
      const text = rest(2)
      return {
        _tag: "Write",
        path: first,
        text: text.startsWith("\"") && text.endsWith("\"") && w.length === 3 ? w[2]! : text
      }
    }
    case "run":
      return first === undefined ? help("run needs a command") : { _tag: "Run", command: first, args: w.slice(2) }
    case "tools":
      return { _tag: "Tools" }
    case "call": {
      if (first === undefined) return help("call needs a tool name and JSON arguments")
      const json = rest(2)
      if (json === "") return { _tag: "Call", tool: first, args: {} }
      try {
        return { _tag: "Call", tool: first, args: JSON.parse(json) as unknown }
      } catch (error) {
        return help(`the arguments to ${first} are not JSON: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    default:
      return help(`"${verb}" is not a command`)
  }
}
