// Resource fan-out: from one cell update to `notifications/resources/updated` received by every one
// of 100 subscribed sessions. Ours: 100 sessions on one face, each SDK client subscribed to the
// cell's `surface://` URI, the update a `SubscriptionRef.set` on the implementation. Peer: 100 raw
// SDK servers (each with its client subscribed) and a loop of `sendResourceUpdated` over them.
// In memory (the SDK's InMemoryTransport pairs), then over Streamable HTTP (GET streams), in process.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { McpFace, McpHttp } from "effect-surface/mcp"
import { count, emit, envInt, interleave, median, note, now, sleep } from "./lib/measure.ts"
import { serveRawHttp } from "./lib/rawHttp.ts"
import { connectOurs, connectRaw, type Held, hold, newClient } from "./lib/run.ts"
import { makeOurs, makeRawServer } from "./lib/workload.ts"

const URI = "surface://cells/count"
/** Longer than the face's default 50 ms coalescing window, so every update is announced at once. */
const GAP_MS = 70

/** A lost notification fails the run instead of hanging it. */
const DEADLINE_MS = 10_000

/** Counts `resources/updated` arrivals across clients; `arm(n)` resolves at the n-th after it. */
const arrivals = (clients: ReadonlyArray<Client>) => {
  let remaining = 0
  let done: (() => void) | undefined
  for (const client of clients) {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
      if (remaining > 0 && --remaining === 0) done?.()
    })
  }
  return (n: number) =>
    new Promise<void>((resolve, reject) => {
      remaining = n
      const timer = setTimeout(
        () => reject(new Error(`only ${n - remaining} of ${n} sessions heard the update within ${DEADLINE_MS} ms`)),
        DEADLINE_MS
      )
      done = () => {
        clearTimeout(timer)
        resolve()
      }
    })
}

const subscribeAll = (clients: ReadonlyArray<Client>) =>
  Promise.all(clients.map((client) => client.subscribeResource({ uri: URI })))

/** One sample: milliseconds from the update to the last of `clients.length` notifications. */
const fanOutOnce =
  (clients: ReadonlyArray<Client>, arm: (n: number) => Promise<void>, update: () => Promise<unknown>) => async () => {
    await sleep(GAP_MS)
    const all = arm(clients.length)
    const start = now()
    await update()
    await all
    return now() - start
  }

interface Side {
  readonly clients: ReadonlyArray<Client>
  readonly update: () => Promise<unknown>
  readonly close: () => Promise<void>
}

const measure = async (transport: string, sessions: number, ours: Side, peer: Side) => {
  await subscribeAll(ours.clients)
  await subscribeAll(peer.clients)
  const samples = count(25, 4)
  note(`fanout ${transport}: ${sessions} sessions, ${samples} updates each`)
  const [oursMs, peerMs] = await interleave(
    [
      fanOutOnce(ours.clients, arrivals(ours.clients), ours.update),
      fanOutOnce(peer.clients, arrivals(peer.clients), peer.update)
    ],
    { samples, warmup: count(3, 1) }
  ) as [Array<number>, Array<number>]
  emit({
    bench: `fanout.resources_updated.${transport}.sessions${sessions}.vs_raw_sdk_loop`,
    ours: median(oursMs),
    peer: median(peerMs),
    unit: `ms from one cell update to ${sessions} notifications received, median`
  })
}

const oursInMemory = async (held: Held, sessions: number): Promise<Side> => {
  const built = await held.run(makeOurs)
  const face = await held.run(McpFace.make(built.options))
  const clients: Array<Client> = []
  for (let i = 0; i < sessions; i++) clients.push(await connectOurs(held, face))
  let n = 0
  return { clients, update: () => held.run(built.setCount(++n)), close: async () => {} }
}

const rawSide = (servers: () => Iterable<Server>) => async () => {
  await Promise.all(Array.from(servers(), (server) => server.sendResourceUpdated({ uri: URI })))
}

const rawInMemory = async (sessions: number): Promise<Side> => {
  const servers = Array.from({ length: sessions }, () => makeRawServer({ resources: true }))
  const clients = await Promise.all(servers.map(connectRaw))
  return { clients, update: rawSide(() => servers), close: async () => {} }
}

const connectHttp = async (url: string, sessions: number) => {
  const clients: Array<Client> = []
  for (let i = 0; i < sessions; i++) {
    const client = newClient()
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    clients.push(client)
  }
  // Let every client's GET stream open: that is where an unprompted notification travels.
  await sleep(300)
  return clients
}

const oursHttp = async (held: Held, sessions: number): Promise<Side> => {
  const built = await held.run(makeOurs)
  const served = await held.run(McpHttp.serve({ ...built.options, http: { port: 0 } }))
  const clients = await connectHttp(served.url, sessions)
  let n = 0
  return {
    clients,
    update: () => held.run(built.setCount(++n)),
    close: async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)))
    }
  }
}

const rawHttp = async (sessions: number): Promise<Side> => {
  const raw = await serveRawHttp({ resources: true })
  const clients = await connectHttp(raw.url, sessions)
  return {
    clients,
    update: rawSide(() => raw.servers),
    close: async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)))
      await raw.close()
    }
  }
}

export const run = async (): Promise<void> => {
  const sessions = envInt("BENCH_FANOUT_SESSIONS", 100, 100)
  const held = await hold()
  try {
    const ours = await oursInMemory(held, sessions)
    const peer = await rawInMemory(sessions)
    await measure("inmemory", sessions, ours, peer)
    await Promise.all([...ours.clients, ...peer.clients].map((client) => client.close()))

    const oursH = await oursHttp(held, sessions)
    const peerH = await rawHttp(sessions)
    try {
      await measure("http", sessions, oursH, peerH)
    } finally {
      await oursH.close()
      await peerH.close()
    }
  } finally {
    await held.close()
  }
}
