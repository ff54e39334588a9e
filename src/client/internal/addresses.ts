/**
 * Which addresses a host not named in `allowedHosts` may reach: public ones only.
 *
 * With no `allowedHosts`, a toolset may reach the host a server's URL names — and that URL came
 * from somebody else's file. A name can resolve to loopback, to a private network or to a cloud
 * metadata address as easily as a literal can, and can resolve one way when checked and another
 * when connected. So the check is made where the address is chosen: a literal is judged as it
 * stands, and a name is judged in the DNS lookup of the very connection that will use it (every
 * connection of every hop), before a socket opens.
 */
import * as Dns from "node:dns"
import * as Net from "node:net"

// What no unnamed host may reach (IANA special-purpose registries, the parts a request can hit).
const blocked = (() => {
  const list = new Net.BlockList()
  for (
    const [network, prefix] of [
      ["0.0.0.0", 8], // "this" network
      ["10.0.0.0", 8], // private
      ["100.64.0.0", 10], // shared address space
      ["127.0.0.0", 8], // loopback
      ["169.254.0.0", 16], // link-local, where cloud metadata answers
      ["172.16.0.0", 12], // private
      ["192.0.0.0", 24], // protocol assignments
      ["192.168.0.0", 16], // private
      ["198.18.0.0", 15], // benchmarking
      ["224.0.0.0", 4], // multicast
      ["240.0.0.0", 4] // reserved, broadcast
    ] as const
  ) list.addSubnet(network, prefix, "ipv4")
  for (
    const [network, prefix] of [
      ["::", 127], // unspecified and loopback
      ["fc00::", 7], // unique local
      ["fe80::", 10], // link-local
      ["ff00::", 8] // multicast
    ] as const
  ) list.addSubnet(network, prefix, "ipv6")
  return list
})()

// The IPv4 address an IPv6 one carries (mapped, or NAT64's well-known prefix), if it carries one.
const carried = (ip: string): string | undefined => {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (dotted !== null) return dotted[1]
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip)
  if (hex === null) return undefined
  const high = parseInt(hex[1] ?? "0", 16)
  const low = parseInt(hex[2] ?? "0", 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join(".")
}

/** Whether `ip` (v4 or v6) is a public address: not private, loopback, link-local or reserved. */
export const isPublic = (ip: string): boolean => {
  const version = Net.isIP(ip)
  if (version === 4) return !blocked.check(ip, "ipv4")
  if (version !== 6) return false
  const v4 = carried(ip)
  return v4 !== undefined ? isPublic(v4) : !blocked.check(ip, "ipv6")
}

/** The address a URL's hostname is, when it is a literal (`127.0.0.1`, `[::1]`); else `undefined`. */
export const literal = (hostname: string): string | undefined => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  return Net.isIP(bare) === 0 ? undefined : bare
}

/**
 * A `lookup` for a connection that may reach public addresses only: the name is resolved as
 * usual, and an answer holding any other address fails the lookup with `refuse`'s error, so the
 * socket never opens.
 */
export const publicLookup = (refuse: (host: string, address: string) => Error): Net.LookupFunction =>
(
  hostname,
  options,
  callback
) =>
  Dns.lookup(hostname, { ...options, all: true }, (error, found) => {
    if (error !== null) return callback(error, "", 0)
    const addresses = Array.isArray(found) ? found : []
    const inner = addresses.find((entry) => !isPublic(entry.address))
    if (inner !== undefined) return callback(refuse(hostname, inner.address), "", 0)
    if (options.all === true) return (callback as (e: null, all: typeof addresses) => void)(null, addresses)
    const [first] = addresses
    return first === undefined
      ? callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0)
      : callback(null, first.address, first.family)
  })
