// What the resource server costs a call: server CPU per `tools/call` over Streamable HTTP with a
// verified bearer token (a JWT, its issuer's keys fetched once and cached) against the same server
// with no authorization, in both eras: 2026-07-28 (stateless POSTs) and 2025-11-25 (one session per
// client). Both servers run alone in child processes (this file, started with `serve`), the same
// workload as the HTTP figures (lib/workload.ts); the issuer is a JWKS served from this process.
// The peer here is our own server without auth: the ratio is the price of the lock on the door.
// Throughput is each server's closed loop; CPU per call is taken apart, every server offered the
// same rate (see `paced`), and the target's ratio pairs the servers within each interleaved round.
// `auth` takes a token it verified on its word for a while (kept by its hash, never past its `exp`);
// `auth-every` checks the signature on every request, the price without that.
import * as Jose from "jose"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { type Child, spawnServer } from "./lib/child.ts"
import { count, emit, envInt, interleave, median, note } from "./lib/measure.ts"
import { sample } from "./lib/throughput.ts"
import { ARGS, TOOL } from "./lib/workload.ts"

const RESOURCE = "urn:bench:mcp"
type Trio = [number, number, number]
const kinds = ["auth", "auth-every", "open"] as const
// `BENCH_AUTH_ERAS=2025` measures one era only (for a profile of its servers).
const eras = (["2026", "2025"] as const).filter((era) => (process.env.BENCH_AUTH_ERAS ?? "2026,2025").includes(era))

// --- the server child ------------------------------------------------------------------------

const serve = async (kind: string) => {
  const { Effect, Exit, Layer, Logger, References, Scope } = await import("effect")
  const { McpAuth, McpHttp, McpTokenVerifier } = await import("effect-surface/mcp")
  const { makeOurs } = await import("./lib/workload.ts")
  const scope = await Effect.runPromise(Scope.make())
  process.on("exit", () => void Effect.runPromise(Scope.close(scope, Exit.void)))
  const issuer = process.env.BENCH_ISSUER ?? ""
  const served = await Effect.runPromise(
    Effect.gen(function*() {
      const { options } = yield* makeOurs
      // Every client holds the one bench token: one subject, as many sessions as clients, none evicted.
      const serving = McpHttp.serve({
        ...options,
        http: { port: 0, maxSessions: 10_000, maxSessionsPerHolder: 10_000 }
      })
      if (kind === "open") return yield* serving
      const verifier = McpTokenVerifier.layerJwt({ issuer, verifiedFor: kind === "auth" ? "60 seconds" : 0 })
      const auth = yield* Layer.build(McpAuth.layer({ resource: RESOURCE }).pipe(Layer.provide(verifier)))
      return yield* Effect.provide(serving, auth)
    }).pipe(
      Scope.provide(scope),
      Effect.provideService(References.MinimumLogLevel, "Warn"),
      Effect.provideService(Logger.LogToStderr, true)
    )
  )
  process.on("message", (message: { readonly type: string; readonly id: number }) => {
    if (message.type !== "cpu") return
    const usage = process.cpuUsage()
    process.send?.({ id: message.id, user: usage.user, system: usage.system })
  })
  process.on("disconnect", () => process.exit(0))
  process.on("SIGTERM", () => process.exit(0))
  process.send?.({ type: "ready", url: served.url })
}

if (import.meta.main && process.argv[2] === "serve") await serve(process.argv[3] ?? "open")

// --- the issuer -------------------------------------------------------------------------------

export const issuer = async () => {
  const { privateKey, publicKey } = await Jose.generateKeyPair("RS256", { extractable: true })
  const jwks = JSON.stringify({ keys: [{ ...(await Jose.exportJWK(publicKey)), kid: "bench", alg: "RS256" }] })
  const server = NodeHttp.createServer((request, response) => {
    response.setHeader("content-type", "application/json")
    if (request.url === "/jwks") return void response.end(jwks)
    response.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const token = await new Jose.SignJWT({ client_id: "bench", scope: "bench" })
    .setProtectedHeader({ alg: "RS256", kid: "bench" })
    .setIssuer(url)
    .setAudience(RESOURCE)
    .setSubject("bench")
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(privateKey)
  return { url, token, close: () => server.close() }
}

// --- the clients ------------------------------------------------------------------------------

const accept = "application/json, text/event-stream"

const answered = async (response: Response, kind: string) => {
  const text = await response.text()
  if (!response.ok || !text.includes("hello, surface")) throw new Error(`${kind} answered ${response.status} ${text}`)
}

/** A 2026 client: one POST per call, its envelope in `_meta`. */
export const modernCaller = (url: string, kind: string, authorization: Record<string, string>) => {
  let id = 0
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {}
  }
  return async () =>
    answered(
      await fetch(url, {
        method: "POST",
        headers: {
          accept,
          "content-type": "application/json",
          "mcp-method": "tools/call",
          "mcp-name": TOOL,
          "mcp-protocol-version": "2026-07-28",
          ...authorization
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { name: TOOL, arguments: ARGS, _meta: meta }
        })
      }),
      kind
    )
}

/** A 2025 client: a session opened once, then one POST per call on it. */
export const legacyCaller = async (url: string, kind: string, authorization: Record<string, string>) => {
  const base = { accept, "content-type": "application/json", "mcp-protocol-version": "2025-11-25", ...authorization }
  const opened = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0.0.0" } }
    })
  })
  await opened.text()
  const headers = { ...base, "mcp-session-id": opened.headers.get("mcp-session-id") ?? "" }
  await (await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
  })).text()
  let id = 1
  return async () =>
    answered(
      await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { name: TOOL, arguments: ARGS }
        })
      }),
      kind
    )
}

/**
 * One sample at a fixed offered rate: a call is started every `1000 / rate` ms on a caller that is
 * free (none is started while all are busy), and the server's CPU per call is pushed. Offered the
 * same rate, two servers wake as often and answer as many calls per wake-up, so what each call
 * costs them is compared alike: a closed loop lets the faster one batch more, and the slower
 * client (a longer header to send) shift the figure.
 */
const paced = async (
  child: Child,
  callers: ReadonlyArray<() => Promise<unknown>>,
  ms: number,
  rate: number,
  cpuPerCall: Array<number>
): Promise<void> => {
  const before = await child.ask<{ readonly user: number; readonly system: number }>({ type: "cpu" })
  const free = [...callers]
  const running = new Set<Promise<unknown>>()
  let started = 0
  let answered = 0
  const start = performance.now()
  while (performance.now() - start < ms) {
    const due = Math.floor(((performance.now() - start) * rate) / 1000)
    while (started < due && free.length > 0) {
      const call = free.pop()!
      started++
      const done: Promise<unknown> = call().then(() => {
        answered++
        running.delete(done)
        free.push(call)
      })
      running.add(done)
    }
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  await Promise.all(running)
  const after = await child.ask<{ readonly user: number; readonly system: number }>({ type: "cpu" })
  cpuPerCall.push((after.user + after.system - before.user - before.system) / answered)
}

// The median over rounds of server `a`'s CPU per call over server `b`'s in the same round.
const pairedRatio = (cpu: ReadonlyArray<ReadonlyArray<number>>, a: number, b: number, samples: number): number => {
  const ours = cpu[a]!.slice(-samples)
  const peer = cpu[b]!.slice(-samples)
  return median(ours.map((x, round) => x / peer[round]!))
}

export const run = async (): Promise<void> => {
  const clients = envInt("BENCH_HTTP_SESSIONS", 50, 50)
  const ms = count(1500, 400)
  const samples = count(9, 2)
  const issued = await issuer()
  const children: Array<Child> = []
  try {
    for (const kind of kinds) {
      children.push(await spawnServer("../auth.ts", ["serve", kind], [], { BENCH_ISSUER: issued.url }))
    }
    const headersOf = (kind: string): Record<string, string> =>
      kind === "open" ? {} : { authorization: `Bearer ${issued.token}` }
    for (const era of eras) {
      const callers = await Promise.all(children.map((child, i) => {
        const kind = kinds[i]!
        return Promise.all(
          Array.from(
            { length: clients },
            () =>
              era === "2026"
                ? Promise.resolve(modernCaller(child.url, kind, headersOf(kind)))
                : legacyCaller(child.url, kind, headersOf(kind))
          )
        )
      }))
      // Each answers once before it is measured (the auth server fetches its keys here).
      await Promise.all(callers.map((group) => group[0]!()))
      note(`auth ${era}: ${clients} clients per server, ${samples} samples × ${ms} ms each, closed loop`)
      const rates = await interleave(
        children.map((child, i) => () => sample(child, callers[i]!, ms, [])),
        { samples, warmup: 1 }
      )
      const [authRate, everyRate, openRate] = rates.map(median) as Trio
      // CPU per call is measured apart, every server offered the same rate: half what the slowest
      // answered in its closed loop, so each keeps up with it.
      const offered = Math.max(50, Math.round(Math.min(authRate, everyRate, openRate) / 2))
      note(`auth ${era}: ${samples} samples × ${ms} ms each at ${offered} calls/s offered`)
      const cpu = children.map((): Array<number> => [])
      await interleave(
        children.map((child, i) => async () => {
          await paced(child, callers[i]!, ms, offered, cpu[i]!)
          return 0
        }),
        { samples, warmup: 1 }
      )
      const [authCpu, everyCpu, openCpu] = cpu.map((readings) => median(readings.slice(-samples))) as Trio
      const perCall = `server CPU µs per call (user+system) at ${offered} calls/s offered, median`
      const bench = `auth.tools_call.server_cpu.${era}.clients${clients}`
      emit({ bench: `${bench}.verified_jwt.vs_no_auth`, ours: authCpu, peer: openCpu, unit: perCall })
      emit({ bench: `${bench}.jwt_checked_every_call.vs_no_auth`, ours: everyCpu, peer: openCpu, unit: perCall })
      // The target's figure: each round's servers ran back to back, so the machine's load (which
      // moves CPU per call by far more than auth does) is nearly the same for the two in a round.
      const paired =
        `server CPU per call with auth over without at ${offered} calls/s offered, paired within each round, median of rounds; target ≤ 1.15`
      const ratios = `auth.tools_call.server_cpu_ratio.${era}.clients${clients}`
      emit({ bench: `${ratios}.verified_jwt.vs_no_auth`, ours: pairedRatio(cpu, 0, 2, samples), peer: 1, unit: paired })
      emit({
        bench: `${ratios}.jwt_checked_every_call.vs_no_auth`,
        ours: pairedRatio(cpu, 1, 2, samples),
        peer: 1,
        unit: paired
      })
      const rate = "calls/s, median"
      const throughput = `auth.tools_call.throughput.${era}.clients${clients}`
      emit({
        bench: `${throughput}.verified_jwt.vs_no_auth`,
        ours: authRate,
        peer: openRate,
        ratio: "peer/ours",
        unit: rate
      })
      emit({
        bench: `${throughput}.jwt_checked_every_call.vs_no_auth`,
        ours: everyRate,
        peer: openRate,
        ratio: "peer/ours",
        unit: rate
      })
    }
  } finally {
    await Promise.all(children.map((child) => child.stop()))
    issued.close()
  }
}
