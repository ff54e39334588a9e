const t0=performance.now()
await import("@effect/platform-node/NodeRuntime"); await import("effect"); await import("effect-surface"); await import("effect-surface/mcp/stdio")
console.log((performance.now()-t0).toFixed(0))
