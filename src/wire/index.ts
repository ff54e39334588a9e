/**
 * effect-surface/wire: the wire face — a surface served on a local socket and dialled from another
 * process (`Wire`), and the `effect/rpc` mapping it speaks (`WireProtocol`).
 *
 * Its own subpath because it loads `effect/rpc` and the socket stack: a server that only reaches its
 * surfaces in process (every stdio server built on `effect-surface`) never pays for them.
 *
 * @since 0.1.0
 */
export * as Wire from "./Wire.ts"
export * as WireProtocol from "../surface/WireProtocol.ts"
