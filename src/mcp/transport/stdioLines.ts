/**
 * The stdio transport: one JSON-RPC message per line on a byte stream pair.
 *
 * A host speaks to a stdio server one line at a time, and every request passes through here, so it
 * does only what a line needs: find its end, parse it once, hand it on; write an answer as one
 * string. (The SDK's stdio transport put each line through a growing buffer, a copy and a schema
 * parse of its own before the serving path parsed it again, and its writer waited on a promise.)
 *
 * Lines longer than the bound are dropped whole, without holding them, and reported; the SDK's
 * transport instead closed itself on a line past its buffer, which left a server that could no
 * longer hear its host while the process ran on. A line that is not a JSON-RPC message is reported
 * to `onerror` and answered by nothing, as before: stdout carries only answers.
 *
 * @internal
 */
import type { Readable, Writable } from "node:stream"
import type * as McpTransport from "../../protocol/Transport.ts"

const NEWLINE = 0x0a
const RETURN = 0x0d

/**
 * Splits a byte stream into lines: every line of at most `limit` bytes (newline included) is handed
 * to `line` as text, a longer one is dropped whole and `dropped` is called with its size. A line is
 * held until complete, so at most `limit` bytes are buffered for it.
 */
export interface LineReader {
  /** Read one chunk, handing on each line it completes. */
  readonly push: (chunk: Buffer) => void
  /** The input has ended: an unterminated last line within the bound is handed on too. */
  readonly end: () => void
}

/** A `LineReader` handing lines to `line` and the sizes of those past `limit` to `dropped`. */
export const lineReader = (
  limit: number,
  line: (text: string) => void,
  dropped: (bytes: number) => void
): LineReader => {
  // The line being read, which may span chunks.
  let pending: Array<Buffer> = []
  let size = 0
  let dropping = false
  const text = (bytes: Buffer, from: number, to: number) => {
    // A host on Windows may end its lines with CRLF.
    const end = to > from && bytes[to - 1] === RETURN ? to - 1 : to
    if (end > from) line(bytes.toString("utf8", from, end))
  }
  const push = (chunk: Buffer) => {
    let from = 0
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from)
      const end = newline === -1 ? chunk.length : newline + 1
      size += end - from
      if (newline === -1) {
        // The chunk ends inside a line: held (or dropped) until its end arrives.
        if (!dropping && size > limit) dropping = true
        if (dropping) pending = []
        else pending.push(from === 0 ? chunk : chunk.subarray(from))
        return
      }
      if (dropping || size > limit) {
        dropped(size)
      } else if (pending.length > 0) {
        pending.push(chunk.subarray(from, newline))
        const whole = Buffer.concat(pending)
        text(whole, 0, whole.length)
      } else {
        text(chunk, from, newline)
      }
      pending = []
      size = 0
      dropping = false
      from = end
    }
  }
  const end = () => {
    if (!dropping && pending.length > 0) {
      const whole = Buffer.concat(pending)
      text(whole, 0, whole.length)
    }
    pending = []
    size = 0
  }
  return { push, end }
}

/** A stdio transport, and when its input has been read to the end. */
export interface Stdio {
  readonly transport: McpTransport.Transport
  /** Resolves once the input has ended (or closed) and every line of it was handed on. */
  readonly ended: Promise<void>
}

const isMessage = (value: unknown): value is McpTransport.Message =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  (value as { readonly jsonrpc?: unknown }).jsonrpc === "2.0"

const notMessage = (text: string): Error => {
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text
  return new Error(`a line on stdin that is not a JSON-RPC 2.0 message: ${shown}`)
}

/**
 * Messages read as lines from `input` and written as lines to `output`. Lines past `limit` bytes
 * are dropped and reported to `dropped`.
 */
export const make = (
  input: Readable,
  output: Writable,
  limit: number,
  dropped: (bytes: number) => void
): Stdio => {
  let started = false
  let closed = false
  let finish: () => void = () => undefined
  const ended = new Promise<void>((resolve) => {
    finish = resolve
  })
  const receive = (text: string) => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return transport.onerror?.(notMessage(text))
    }
    if (isMessage(value)) transport.onmessage?.(value)
    else transport.onerror?.(notMessage(text))
  }
  const reader = lineReader(limit, receive, dropped)
  const onData = (chunk: Buffer) => reader.push(chunk)
  const onError = (error: Error) => transport.onerror?.(error)
  const onEnd = () => {
    input.off("end", onEnd).off("close", onEnd)
    if (!closed) reader.end()
    finish()
  }
  const detach = () => {
    input.off("data", onData).off("error", onError)
    if (input.listenerCount("data") === 0) input.pause()
  }
  const transport: McpTransport.Transport = {
    start: async () => {
      if (started) throw new Error("the stdio transport is already started")
      started = true
      input.on("data", onData).on("error", onError)
      if (input.readableEnded || input.destroyed) onEnd()
      else input.once("end", onEnd).once("close", onEnd)
    },
    send: (message) => {
      // Resolved once the stream has taken the line, as the SDK's own writer does.
      if (output.write(`${JSON.stringify(message)}\n`)) return Promise.resolve()
      return new Promise((resolve) => output.once("drain", resolve))
    },
    close: async () => {
      if (closed) return
      closed = true
      detach()
      transport.onclose?.()
    }
  }
  return { transport, ended }
}
