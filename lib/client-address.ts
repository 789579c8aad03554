// Who a request came from, for rate limits and logs, shared by the gateway, the web server and the
// web app's public routes: the caller's address behind TRUSTED_PROXIES (clientIpResolver) and the
// subject a per-IP limit counts (rateLimitClient: an IPv6 caller by its /64, since one host usually
// holds a whole /64 and could rotate through it; an IPv4-mapped address as its IPv4 address).
import { BlockList, isIP } from "node:net";

/**
 * Who a rate limit counts: an IPv4 address as it is (also when written IPv4-mapped, `::ffff:a.b.c.d`
 * or `::ffff:xxxx:xxxx`), an IPv6 address by its /64 (`2001:db8:1:2::/64`), anything else as given.
 */
export function rateLimitClient(ip: string): string {
  const family = isIP(ip);
  if (family !== 6) return ip;
  const groups = expandIpv6(ip);
  if (!groups) return ip;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (an embedded IPv4 tail and a zone id allowed). */
function expandIpv6(ip: string): number[] | null {
  let text = ip.split("%")[0].toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  return [...left, ...Array(missing).fill("0"), ...right].map((g) => parseInt(g, 16));
}

/**
 * The client's address: the socket peer, unless that peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy. Entries are IPs or CIDRs.
 */
export function clientIpResolver(trustedProxies: string[]): (remoteAddress: string | undefined, forwardedFor: string | string[] | undefined) => string {
  const list = new BlockList();
  for (const entry of trustedProxies) {
    const [address, prefix] = entry.split("/");
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (!isIP(address)) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR`);
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  const trusted = (ip: string) => {
    const plain = ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
    const family = isIP(plain);
    return family !== 0 && list.check(plain, family === 6 ? "ipv6" : "ipv4");
  };
  return (remoteAddress, forwardedFor) => {
    const remote = remoteAddress ?? "";
    if (!trustedProxies.length || !trusted(remote)) return remote;
    const hops = [forwardedFor]
      .flat()
      .filter((v): v is string => Boolean(v))
      .join(",")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => isIP(s) !== 0);
    for (let i = hops.length - 1; i >= 0; i--) if (!trusted(hops[i])) return hops[i];
    return hops[0] ?? remote;
  };
}
