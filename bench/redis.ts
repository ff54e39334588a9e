// Streamable HTTP with its sessions in Redis: what sharing them costs a call, and what a second
// instance behind a balancer gives back. One run, four targets, every server in a child process:
// ours in memory (one instance, the embedded default), ours on Redis (one instance), the same
// instance behind the round-robin proxy, and two instances on Redis behind the proxy (no affinity:
// each session's calls alternate between them). Redis is a redis-server started for the run
// (persistence off). Figures, each against the in-memory instance measured in the same run with
// the samples interleaved: calls/s with 50 sessions calling back to back; the instances' CPU per
// call, alone and with Redis's own; one session's sequential call latency. The proxy and the SDK
// clients run in this process, on the cores the servers and Redis also use.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Context, Effect, Layer } from "effect"
import * as Redis from "effect/persistence/Redis"
import * as Proxy from "../test/mcp/cluster/proxy.ts"
import * as RedisServer from "../test/mcp/redisServer.ts"
import { type Child, spawnServer } from "./lib/child.ts"
import { count, emit, envInt, interleave, median, note, now, sequential } from "./lib/measure.ts"
import { hold, newClient } from "./lib/run.ts"
import { ARGS, TOOL } from "./lib/workload.ts"

interface Target {
  readonly name: string
  readonly url: string
  readonly children: ReadonlyArray<Child>
  readonly redis: boolean
}

interface Reading {
  readonly rate: number
  readonly cpu: number
  readonly redisCpu: number
}

interface Cpu {
  readonly user: number
  readonly system: number
}

const openSessions = async (url: string, n: number, batch = 10): Promise<Array<Client>> => {
  const clients: Array<Client> = []
  for (let i = 0; i < n; i += batch) {
    clients.push(
      ...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, async () => {
        const client = newClient()
        await client.connect(new StreamableHTTPClientTransport(new URL(url)))
        return client
      })))
    )
  }
  return clients
}

const cpuOf = async (children: ReadonlyArray<Child>): Promise<number> => {
  const readings = await Promise.all(children.map((child) => child.ask<Cpu>({ type: "cpu" })))
  return readings.reduce((sum, reading) => sum + reading.user + reading.system, 0)
}

/** Redis's own CPU so far, in µs (`INFO cpu`). */
const redisCpuOf = (redis: Redis.Redis["Service"]) =>
  Effect.map(Effect.orDie(redis.send<string>("INFO", "cpu")), (info) => {
    const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? "0")
    return (field("used_cpu_user") + field("used_cpu_sys")) * 1e6
  })

/** One sample: every session calls back to back for `ms`; calls/s and CPU µs per call. */
const sample = async (
  target: Target,
  clients: ReadonlyArray<Client>,
  ms: number,
  redisCpu: () => Promise<number>
): Promise<Reading> => {
  const [cpu0, redis0] = await Promise.all([cpuOf(target.children), target.redis ? redisCpu() : Promise.resolve(0)])
  let calls = 0
  const start = now()
  const deadline = start + ms
  await Promise.all(clients.map(async (client) => {
    while (now() < deadline) {
      await client.callTool({ name: TOOL, arguments: ARGS })
      calls++
    }
  }))
  const elapsed = now() - start
  const [cpu1, redis1] = await Promise.all([cpuOf(target.children), target.redis ? redisCpu() : Promise.resolve(0)])
  return { rate: (calls * 1000) / elapsed, cpu: (cpu1 - cpu0) / calls, redisCpu: (redis1 - redis0) / calls }
}

export const run = async (): Promise<void> => {
  const held = await hold()
  const children: Array<Child> = []
  try {
    const server = await held.run(RedisServer.start)
    const redis = Context.get(
      await held.run(Effect.orDie(Layer.build(NodeRedis.layer({ url: server.url })))),
      Redis.Redis
    )
    const redisCpu = () => Effect.runPromise(redisCpuOf(redis))
    const one: Array<string> = []
    const two: Array<string> = []
    const proxyOne = await held.run(Proxy.start(one))
    const proxyTwo = await held.run(Proxy.start(two))
    const shared = (prefix: string, proxy: Proxy.Proxy) =>
      spawnServer("http.ts", ["ours-redis"], [], {
        REDIS_URL: server.url,
        REDIS_PREFIX: prefix,
        ALLOWED_HOSTS: `127.0.0.1:${proxy.port}`
      })
    const memory = await spawnServer("http.ts", ["ours"])
    const single = await shared("bench-one:", proxyOne)
    const pair = [await shared("bench-two:", proxyTwo), await shared("bench-two:", proxyTwo)]
    children.push(memory, single, ...pair)
    const origin = (child: Child) => new URL(child.url).origin
    one.push(origin(single))
    two.push(...pair.map(origin))
    const targets: ReadonlyArray<Target> = [
      { name: "in_memory", url: memory.url, children: [memory], redis: false },
      { name: "one_on_redis", url: single.url, children: [single], redis: true },
      { name: "one_on_redis_behind_proxy", url: proxyOne.url, children: [single], redis: true },
      { name: "two_on_redis_behind_proxy", url: proxyTwo.url, children: pair, redis: true }
    ]
    await measure(targets, redisCpu)
  } finally {
    await Promise.all(children.map((child) => child.stop()))
    await held.close()
  }
}

const measure = async (targets: ReadonlyArray<Target>, redisCpu: () => Promise<number>) => {
  const sessions = envInt("BENCH_HTTP_SESSIONS", 50, 50)
  const ms = count(2000, 400)
  const samples = count(7, 2)
  const clients: Array<Array<Client>> = []
  for (const target of targets) clients.push(await openSessions(target.url, sessions))
  note(
    `redis: ${sessions} sessions per target, ${samples} samples × ${ms} ms each; the machine is shared, so read the ratios, not the rates`
  )
  // Each sample's readings beside its rate; the warm-up round's are dropped as its rates are.
  const readings = targets.map((): Array<Reading> => [])
  await interleave(
    targets.map((target, i) => async () => {
      const reading = await sample(target, clients[i]!, ms, redisCpu)
      readings[i]!.push(reading)
      return reading.rate
    }),
    { samples, warmup: 1 }
  )
  const of = (i: number, pick: (reading: Reading) => number) => median(readings[i]!.slice(-samples).map(pick))
  const names = targets.map((target) => target.name)
  const rate = "calls/s (higher is better), median"
  const cpu = "server CPU µs per call (user+system of every instance), median"
  for (let i = 1; i < targets.length; i++) {
    emit({
      bench: `redis.tools_call.throughput.sessions${sessions}.${names[i]}.vs_in_memory`,
      ours: of(i, (r) => r.rate),
      peer: of(0, (r) => r.rate),
      unit: rate
    })
    emit({
      bench: `redis.tools_call.server_cpu.sessions${sessions}.${names[i]}.vs_in_memory`,
      ours: of(i, (r) => r.cpu),
      peer: of(0, (r) => r.cpu),
      unit: cpu
    })
  }
  emit({
    bench: `redis.tools_call.throughput.sessions${sessions}.two_on_redis_behind_proxy.vs_one_on_redis_behind_proxy`,
    ours: of(3, (r) => r.rate),
    peer: of(2, (r) => r.rate),
    unit: rate
  })
  // The per-call cost of sharing: the instance's CPU and Redis's own, against the instance in memory.
  emit({
    bench: `redis.tools_call.cpu_with_redis.sessions${sessions}.one_on_redis.vs_in_memory`,
    ours: of(1, (r) => r.cpu + r.redisCpu),
    peer: of(0, (r) => r.cpu),
    unit: "CPU µs per call, the instance's plus Redis's (user+system), median"
  })
  note(
    `redis: Redis's own CPU per call ${of(1, (r) => r.redisCpu).toFixed(1)} µs (one instance), ${
      of(3, (r) => r.redisCpu).toFixed(1)
    } µs (two)`
  )
  await Promise.all(clients.flat().map((client) => client.close().catch(() => undefined)))
  await latency(targets)
}

/** One session's calls one after another: the latency sharing adds to each. */
const latency = async (targets: ReadonlyArray<Target>) => {
  const n = count(2000, 200)
  const clients = await Promise.all(targets.slice(0, 2).map(async (target) => (await openSessions(target.url, 1))[0]!))
  const call = (client: Client) => () => client.callTool({ name: TOOL, arguments: ARGS })
  const taken = await interleave(clients.map((client) => () => sequential(n, call(client))), {
    samples: count(5, 2),
    warmup: 1
  })
  emit({
    bench: "redis.tools_call.latency.sequential.one_on_redis.vs_in_memory",
    ours: median(taken[1]!),
    peer: median(taken[0]!),
    unit: "µs per call, one session calling sequentially (lower is better), median"
  })
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)))
}
