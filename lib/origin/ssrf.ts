// SSRF defence for every address a workspace chooses: which addresses we refuse to call, the URL
// check run when a webhook, origin or wallet is saved, and the undici dispatcher that re-checks the
// RESOLVED address at connect time (a DNS answer that changes between the check and the call cannot
// reach a blocked address). Webhook deliveries, origins (./origin-policy.ts) and wallets
// (lib/lightning/wallet-network.ts) use it; pinnedSocketConnector applies it to WebSocket clients.
import { lookup as dnsLookup } from "node:dns/promises";
import net, { isIP, isIPv4, isIPv6, type LookupFunction } from "node:net";
import tls from "node:tls";
import { Agent, buildConnector } from "undici";
import { AppError } from "@/lib/errors/index.ts";

/** Why a target was refused: the rule names used in 422 bodies and delivery errors. */
export type TargetRule = "invalid_url" | "https_required" | "credentials_not_allowed" | "unresolvable_host" | "blocked_address";

/** A refused target: `rule` is stable for programs, `message` says which rule and why. */
export type TargetProblem = { rule: TargetRule; message: string };

/** One resolved address as dns.lookup({all: true}) returns it. */
export type ResolvedAddress = { address: string; family: number };

/** Resolves a host name to all its addresses; injectable so tests can script DNS answers. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** What decides whether an address may be called. */
export type TargetPolicy = {
  resolver: HostResolver;
  /** CIDRs allowed even though they are in a blocked range (WEBHOOK_/WALLET_ALLOWED_TARGETS: self-hosting, tests). */
  allowedTargets: readonly string[];
};

/** How long a name may take to resolve before the target counts as unresolvable. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address, bounded in time. */
export const systemResolver: HostResolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`resolving ${hostname} took longer than ${RESOLVE_TIMEOUT_MS} ms`), { code: "ETIMEOUT" })),
      RESOLVE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([dnsLookup(hostname, { all: true, verbatim: true }), timeout]);
  } finally {
    clearTimeout(timer);
  }
};

// ---------------------------------------------------------------- address arithmetic

type Family = 4 | 6;
type Cidr = { family: Family; base: bigint; prefix: number };

/** Strict dotted-quad IPv4 (what resolvers and URL parsing produce) as a 32-bit number. */
function parseIPv4(text: string): bigint | null {
  if (!isIPv4(text)) return null;
  return text.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/**
 * inet_aton's lenient IPv4 grammar (1 to 4 parts; each decimal, 0-prefixed octal or 0x hex; the last
 * part fills the remaining bytes): `2130706433`, `0x7f.1`, `017700000001` and `127.1` are all
 * 127.0.0.1 to getaddrinfo. Returns the dotted quad, or null when the text is not such a number.
 */
export function parseLooseIPv4(text: string): string | null {
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((p) => p === "")) {
    // A single trailing dot is allowed by resolvers ("127.0.0.1.").
    if (!(parts.length <= 5 && parts.at(-1) === "" && parts.slice(0, -1).every((p) => p !== ""))) return null;
    parts.pop();
  }
  const values: bigint[] = [];
  for (const part of parts) {
    let value: bigint;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0n : BigInt(part);
    else if (/^0[0-7]+$/.test(part)) value = BigInt(`0o${part.slice(1)}`);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = BigInt(part);
    else return null;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255n)) return null;
  if (last >= 1n << BigInt(8 * (4 - values.length))) return null;
  let n = 0n;
  values.forEach((v, i) => (n |= v << BigInt(8 * (3 - i))));
  n |= last;
  return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join(".");
}

/** IPv6 text (any compression, embedded IPv4 tail, zone id) as a 128-bit number. */
function parseIPv6(text: string): bigint | null {
  let s = text.includes("%") ? text.slice(0, text.indexOf("%")) : text;
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(":");
  const tail = s.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = s.includes("::") ? s.split("::") : [s, undefined];
  const headGroups = head ? head.split(":") : [];
  const restGroups = rest ? rest.split(":") : [];
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = rest === undefined ? headGroups : [...headGroups, ...Array(missing).fill("0"), ...restGroups];
  if (groups.length !== 8) return null;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function parseAddress(text: string): { family: Family; value: bigint } | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIPv6(text);
  if (v6 !== null) return { family: 6, value: v6 };
  return null;
}

/** Parses `a.b.c.d/n` or `x::y/n` (a bare address is a /32 or /128); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [addr, prefixText, extra] = text.trim().split("/");
  if (extra !== undefined || !addr) return null;
  const parsed = parseAddress(addr);
  if (!parsed) return null;
  const bits = parsed.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return null;
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  return { family: parsed.family, base: parsed.value & mask, prefix };
}

function contains(cidr: Cidr, family: Family, value: bigint): boolean {
  if (cidr.family !== family) return false;
  const bits = family === 4 ? 32 : 128;
  const shift = BigInt(bits - cidr.prefix);
  return value >> shift === cidr.base >> shift;
}

// ---------------------------------------------------------------- the blocked ranges

type BlockedRange = { cidr: string; reason: string; parsed: Cidr };

const range = (cidr: string, reason: string): BlockedRange => ({ cidr, reason, parsed: parseCidr(cidr)! });

/**
 * Every range a workspace-chosen address (webhook, origin, wallet) may not reach (IANA
 * special-purpose registries) unless the install allows it, first match wins so the
 * more specific reason is reported. Anything in IPv6 outside 2000::/3 is refused as reserved.
 */
export const BLOCKED_RANGES: readonly BlockedRange[] = [
  range("169.254.169.254/32", "cloud metadata"),
  range("100.100.100.200/32", "cloud metadata"),
  range("0.0.0.0/8", 'unspecified ("this network")'),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "carrier-grade NAT (shared address space)"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "reserved (IETF protocol assignments)"),
  range("192.0.2.0/24", "documentation"),
  range("192.88.99.0/24", "reserved (6to4 relay anycast)"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved"),
  range("::/128", "unspecified"),
  range("::1/128", "loopback"),
  range("64:ff9b:1::/48", "reserved (local-use NAT64)"),
  range("100::/64", "reserved (discard-only)"),
  range("fd00:ec2::254/128", "cloud metadata"),
  range("fc00::/7", "private (unique local)"),
  range("fe80::/10", "link-local"),
  range("fec0::/10", "reserved (site-local)"),
  range("ff00::/8", "multicast"),
  range("2001:db8::/32", "documentation"),
  range("3fff::/20", "documentation"),
  range("2001:2::/48", "benchmarking"),
  range("2001::/32", "reserved (Teredo)"),
  range("2001::/23", "reserved (IETF protocol assignments)"),
  range("2002::/16", "reserved (6to4)"),
];

const GLOBAL_UNICAST_V6 = parseCidr("2000::/3")!;
const IPV4_MAPPED = parseCidr("::ffff:0:0/96")!;
const NAT64_WELL_KNOWN = parseCidr("64:ff9b::/96")!;

function parseAllowed(allowed: readonly string[]): Cidr[] {
  return allowed.map((c) => parseCidr(c)).filter((c): c is Cidr => c !== null);
}

/** The verdict on one address. */
export type AddressVerdict = { blocked: false } | { blocked: true; range: string; reason: string };

function classifyParsed(family: Family, value: bigint, allowed: Cidr[]): AddressVerdict {
  if (allowed.some((c) => contains(c, family, value))) return { blocked: false };
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the embedded IPv4 address.
    for (const [prefix, label] of [
      [IPV4_MAPPED, "IPv4-mapped"],
      [NAT64_WELL_KNOWN, "NAT64"],
    ] as const) {
      if (contains(prefix, 6, value)) {
        const inner = classifyParsed(4, value & 0xffffffffn, allowed);
        return inner.blocked
          ? { blocked: true, range: `${prefix === IPV4_MAPPED ? "::ffff:0:0/96" : "64:ff9b::/96"} + ${inner.range}`, reason: `${inner.reason} (${label})` }
          : inner;
      }
    }
  }
  const hit = BLOCKED_RANGES.find((r) => contains(r.parsed, family, value));
  if (hit) return { blocked: true, range: hit.cidr, reason: hit.reason };
  if (family === 6 && !contains(GLOBAL_UNICAST_V6, 6, value)) return { blocked: true, range: "outside 2000::/3", reason: "reserved (not global unicast)" };
  return { blocked: false };
}

/**
 * Classifies an IP address (IPv4, IPv6, IPv4-mapped, NAT64, zone ids; lenient IPv4 numerals like
 * 2130706433 are read as getaddrinfo reads them). Unparseable text is blocked: we never call what
 * we cannot classify.
 */
export function classifyAddress(address: string, allowedTargets: readonly string[] = []): AddressVerdict {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const parsed = parseAddress(bare) ?? (parseLooseIPv4(bare) ? parseAddress(parseLooseIPv4(bare)!) : null);
  if (!parsed) return { blocked: true, range: "unparseable", reason: "not an IP address" };
  return classifyParsed(parsed.family, parsed.value, parseAllowed(allowedTargets));
}

/** Refusal of a connection to a blocked address (at save time or at connect time). */
export class BlockedTargetError extends Error {
  readonly code = "blocked_address";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
    readonly range: string,
  ) {
    super(host === address ? `${address} is a ${reason} address (${range})` : `${host} resolves to ${address}, a ${reason} address (${range})`);
    this.name = "BlockedTargetError";
  }
}

/** The first blocked address of a host's answers, as an error; null when every address is allowed. */
function firstBlocked(host: string, addresses: readonly ResolvedAddress[], allowedTargets: readonly string[]): BlockedTargetError | null {
  for (const { address } of addresses) {
    const verdict = classifyAddress(address, allowedTargets);
    if (verdict.blocked) return new BlockedTargetError(host, address, verdict.reason, verdict.range);
  }
  return null;
}

/** The host of a URL without IPv6 brackets or a trailing dot. */
function bareHostname(url: URL): string {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return host.endsWith(".") && !isIP(host) ? host.slice(0, -1) : host;
}

/**
 * The save-time check of a subscription URL: https only, no credentials, and EVERY address the host
 * resolves to must be allowed (one blocked answer refuses the host). Returns null when acceptable.
 */
export async function checkWebhookUrl(rawUrl: string, policy: TargetPolicy): Promise<TargetProblem | null> {
  return checkTargetUrl(rawUrl, policy, { requireHttps: true });
}

/**
 * The same check for any server-side call to a user-given URL (webhooks: https only; origins,
 * the dashboard's connection test and wallets: http or https). Returns null when acceptable.
 */
export async function checkTargetUrl(
  rawUrl: string,
  policy: TargetPolicy,
  options: { requireHttps: boolean; /** Shape only: no DNS, no address rule (installs that allow private targets). */ addressCheck?: boolean },
): Promise<TargetProblem | null> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { rule: "invalid_url", message: "must be an absolute URL such as https://example.com/webhooks" };
  }
  const allowed = options.requireHttps ? ["https:"] : ["https:", "http:"];
  if (!allowed.includes(url.protocol))
    return { rule: "https_required", message: `must use ${allowed.map((p) => p.slice(0, -1)).join(" or ")} (got ${url.protocol.replace(/:$/, "")})` };
  if (url.username || url.password) return { rule: "credentials_not_allowed", message: "must not contain a user name or password" };
  const host = bareHostname(url);
  if (!host) return { rule: "invalid_url", message: "must name a host" };
  if (options.addressCheck === false) return null;
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await policy.resolver(host);
    } catch (err) {
      return { rule: "unresolvable_host", message: `host ${host} does not resolve (${(err as { code?: string }).code ?? (err as Error).message})` };
    }
    if (addresses.length === 0) return { rule: "unresolvable_host", message: `host ${host} does not resolve to any address` };
  }
  const blocked = firstBlocked(host, addresses, policy.allowedTargets);
  if (blocked) return { rule: "blocked_address", message: `must not point to a private or reserved address: ${blocked.message}` };
  return null;
}

/**
 * checkWebhookUrl for the management API: a refused URL is a 422 whose message and details name the
 * field (`url`) and the rule that failed.
 */
export async function assertWebhookUrl(rawUrl: string, policy: TargetPolicy): Promise<void> {
  const problem = await checkWebhookUrl(rawUrl, policy);
  if (!problem) return;
  throw new AppError("validation_failed", `Invalid request: url: ${problem.message} (rule ${problem.rule})`, {
    fields: [{ field: "url", message: problem.message, rule: problem.rule }],
  });
}

// ---------------------------------------------------------------- connect-time pinning

/**
 * A net/tls `lookup` that asks the policy's resolver and refuses the connection when any answer is
 * blocked. The socket connects to exactly the addresses checked here, so a DNS answer that changes
 * after the save-time check (rebinding) cannot slip through.
 */
export function pinnedLookup(policy: TargetPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    policy.resolver(hostname).then(
      (answers) => {
        if (answers.length === 0) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: "ENOTFOUND" }));
        const blocked = firstBlocked(hostname, answers, policy.allowedTargets);
        if (blocked) return callback(blocked);
        const family = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
        const usable = family ? answers.filter((a) => a.family === family) : answers;
        if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: "ENOTFOUND" }));
        if (options.all)
          return callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        return callback(null, usable[0].address, usable[0].family);
      },
      (err: unknown) => callback(err),
    );
  }) as LookupFunction;
}

/** The policy plus connection settings of the delivery dispatcher. */
export type PinnedDispatcherOptions = TargetPolicy & {
  /** Extra trusted CA certificates (PEM) replacing the defaults; production uses NODE_EXTRA_CA_CERTS instead. */
  ca?: string | string[];
  /** TCP + TLS handshake limit. */
  connectTimeoutMs?: number;
  /** Connections kept per receiver origin (bounds one receiver's share of sockets); null: no cap. */
  connectionsPerOrigin?: number | null;
  /** Idle keep-alive of pooled connections (default 30 s). */
  keepAliveTimeoutMs?: number;
};

/**
 * The undici dispatcher every delivery goes through: IP-literal hosts are classified before
 * connecting, names are resolved by pinnedLookup, and the connected socket's peer address is checked
 * once more (belt and braces) before a byte is written.
 */
export function createPinnedDispatcher(options: PinnedDispatcherOptions): Agent {
  const base = buildConnector({
    lookup: pinnedLookup(options),
    timeout: options.connectTimeoutMs ?? 10_000,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.startsWith("[") ? opts.hostname.slice(1, -1) : opts.hostname;
    if (isIP(host)) {
      const verdict = classifyAddress(host, options.allowedTargets);
      if (verdict.blocked) return callback(new BlockedTargetError(host, host, verdict.reason, verdict.range), null);
    }
    base(opts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error("connection failed"), null);
      const peer = socket.remoteAddress;
      const verdict = peer ? classifyAddress(peer, options.allowedTargets) : ({ blocked: true, range: "unknown", reason: "unknown peer" } as const);
      if (verdict.blocked) {
        socket.destroy();
        return callback(new BlockedTargetError(host, peer ?? "unknown", verdict.reason, verdict.range), null);
      }
      callback(null, socket);
    });
  };
  return new Agent({
    connect,
    connections: options.connectionsPerOrigin === null ? undefined : (options.connectionsPerOrigin ?? 8),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    keepAliveMaxTimeout: 60_000,
  });
}

/** What node:http hands a `createConnection` (the `ws` package passes its client options through). */
type SocketConnectOptions = { host?: string; hostname?: string; port?: number | string; servername?: string; [option: string]: unknown };

/**
 * A `createConnection` for clients that open raw sockets rather than going through undici (the
 * `ws` package's WebSocket client): the same rules as createPinnedDispatcher. An IP-literal host is
 * classified before any packet is sent, a name is resolved by pinnedLookup, and the connected peer
 * is checked once more before the client writes its first byte (our listener runs before node:http's).
 */
export function pinnedSocketConnector(policy: TargetPolicy, options: { tls: boolean }) {
  const lookup = pinnedLookup(policy);
  return (connectOptions: SocketConnectOptions, created: (err: Error | null, socket?: net.Socket) => void): net.Socket | undefined => {
    const rawHost = String(connectOptions.host ?? connectOptions.hostname ?? "");
    const host = rawHost.startsWith("[") ? rawHost.slice(1, -1) : rawHost;
    if (isIP(host)) {
      const verdict = classifyAddress(host, policy.allowedTargets);
      if (verdict.blocked) {
        created(new BlockedTargetError(host, host, verdict.reason, verdict.range));
        return undefined;
      }
    }
    const socketOptions = { ...connectOptions, host, lookup } as net.NetConnectOpts & tls.ConnectionOptions;
    // SNI names the host, never an IP literal (what `ws` itself sends).
    const socket = options.tls
      ? tls.connect({ ...socketOptions, servername: connectOptions.servername ?? (isIP(host) ? "" : host) })
      : net.connect(socketOptions);
    socket.once("connect", () => {
      const peer = socket.remoteAddress;
      const verdict = peer ? classifyAddress(peer, policy.allowedTargets) : ({ blocked: true, range: "unknown", reason: "unknown peer" } as const);
      if (verdict.blocked) socket.destroy(new BlockedTargetError(host, peer ?? "unknown", verdict.reason, verdict.range));
    });
    return socket;
  };
}

/** The policy of a running process: the system resolver and WEBHOOK_ALLOWED_TARGETS. */
export function targetPolicyFor(config: { webhookAllowedTargets: readonly string[] }, resolver: HostResolver = systemResolver): TargetPolicy {
  return { resolver, allowedTargets: config.webhookAllowedTargets };
}
