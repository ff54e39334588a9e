/**
 * A bound on the lines a stdio server reads.
 *
 * The SDK's stdio transport closes itself when one line outgrows its buffer, which leaves a server
 * that can no longer hear its host while the process still runs. Lines longer than the bound are
 * dropped here instead, before the transport sees them, and the drop is reported; every other line
 * passes through unchanged, so the next request is served.
 *
 * @since 0.1.0
 */
import { Transform } from "node:stream"

const NEWLINE = 0x0a

/**
 * A byte stream transform passing through every line of at most `limit` bytes (newline included)
 * and dropping longer ones whole, calling `dropped` with each one's size. Lines are held until
 * complete, so at most `limit` bytes are buffered.
 */
export const boundLines = (limit: number, dropped: (bytes: number) => void): Transform => {
  // The state of the line being read; a Node stream transform is called one chunk at a time.
  let pending: Array<Buffer> = []
  let size = 0
  let dropping = false
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      let from = 0
      while (from < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, from)
        const end = newline === -1 ? chunk.length : newline + 1
        const piece = chunk.subarray(from, end)
        from = end
        size += piece.length
        if (!dropping) {
          if (size > limit) {
            dropping = true
            pending = []
          } else {
            pending.push(piece)
          }
        }
        if (newline !== -1) {
          if (dropping) dropped(size)
          else this.push(Buffer.concat(pending))
          pending = []
          size = 0
          dropping = false
        }
      }
      callback()
    },
    flush(callback) {
      if (!dropping && pending.length > 0) this.push(Buffer.concat(pending))
      callback()
    }
  })
}
