/**
 * A bound on the lines a stdio server reads.
 *
 * The SDK's stdio transport closes itself when one line outgrows its buffer, which leaves a server
 * that can no longer hear its host while the process still runs. Lines longer than the bound are
 * dropped here instead, before the transport sees them, and the drop is reported; every other line
 * passes through unchanged, so the next request is served.
 *
 * It sits on every request's way in, so it is a `Readable` fed from the source's own `data`
 * events rather than a piped `Transform` (whose writable side costs each chunk a write and a tick),
 * and the whole lines of one chunk pass in one push.
 *
 * @internal
 */
import { Readable } from "node:stream"

const NEWLINE = 0x0a

/**
 * The lines of `source`: every line of at most `limit` bytes (newline included) passes through, a
 * longer one is dropped whole and `dropped` is called with its size. A line is held until complete,
 * so at most `limit` bytes are buffered for it; the source is paused while the lines are not read.
 */
export const boundLines = (source: Readable, limit: number, dropped: (bytes: number) => void): Readable => {
  // The line being read, which may span chunks.
  let pending: Array<Buffer> = []
  let size = 0
  let dropping = false
  const lines = new Readable({
    read() {
      source.resume()
    }
  })
  const pass = (bytes: Buffer) => {
    if (!lines.push(bytes)) source.pause()
  }
  source.on("data", (chunk: Buffer) => {
    // Whole lines of this chunk not yet passed, from `run` to `runEnd`.
    let run = 0
    let runEnd = 0
    let from = 0
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from)
      const end = newline === -1 ? chunk.length : newline + 1
      size += end - from
      if (newline === -1) {
        // The chunk ends inside a line: held (or dropped) until its end arrives.
        if (!dropping && size > limit) dropping = true
        if (dropping) pending = []
        else pending.push(chunk.subarray(from, end))
      } else if (dropping || size > limit) {
        if (runEnd > run) pass(chunk.subarray(run, runEnd))
        run = runEnd = end
        pending = []
        dropped(size)
      } else if (pending.length > 0) {
        // A line begun in an earlier chunk is the first of this one: nothing precedes it here.
        pass(Buffer.concat([...pending, chunk.subarray(from, end)]))
        run = runEnd = end
        pending = []
      } else {
        runEnd = end
      }
      if (newline !== -1) {
        size = 0
        dropping = false
      }
      from = end
    }
    if (runEnd > run) pass(chunk.subarray(run, runEnd))
  })
  // A source closed without ending (destroyed, or failed) ends the lines as well: nothing more comes.
  const finish = () => {
    source.off("end", finish).off("close", finish)
    if (!dropping && pending.length > 0) pass(Buffer.concat(pending))
    lines.push(null)
  }
  if (source.readableEnded) lines.push(null)
  else source.once("end", finish).once("close", finish)
  return lines
}
