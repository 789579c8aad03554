// The SSRF table: every blocked range (IPv4, IPv6, IPv4-mapped, NAT64), numeric tricks, scripted DNS
// answers, the allow-list, and the lenient IPv4 grammar against an independent model.
import http from "node:http";
import https from "node:https";
import type net from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { generateSelfSignedCertificate } from "@/tests/fakes/lightning/self-signed-cert.ts";
import { BlockedTargetError, checkWebhookUrl, classifyAddress, parseCidr, parseLooseIPv4, pinnedSocketConnector, type HostResolver } from "./ssrf.ts";

const noDns: HostResolver = async (host) => {
  throw Object.assign(new Error(`unexpected lookup of ${host}`), { code: "ENOTFOUND" });
};
const answers =
  (table: Record<string, string[]>): HostResolver =>
  async (host) => {
    const list = table[host];
    if (!list) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

describe("classifyAddress", () => {
  // [address, expected reason fragment]: one or more per blocked range.
  const blocked: [string, string][] = [
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.55", "documentation"],
    ["192.88.99.1", "reserved"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback (IPv4-mapped)"],
    ["::ffff:7f00:1", "loopback (IPv4-mapped)"],
    ["::ffff:10.1.2.3", "private (IPv4-mapped)"],
    ["::ffff:169.254.169.254", "cloud metadata (IPv4-mapped)"],
    ["0:0:0:0:0:ffff:c0a8:0101", "private (IPv4-mapped)"],
    ["64:ff9b::7f00:1", "loopback (NAT64)"],
    ["64:ff9b::10.0.0.1", "private (NAT64)"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["::127.0.0.1", "reserved"],
    ["100::1", "discard-only"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["fd00:ec2::254", "cloud metadata"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["ff05::1:3", "multicast"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"],
    ["2001:2::1", "benchmarking"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["2001:10::1", "IETF protocol assignments"],
    ["2002:7f00:1::1", "6to4"],
    ["4000::1", "not global unicast"],
    ["::2", "not global unicast"],
  ];
  it.each(blocked)("blocks %s (%s)", (address, reason) => {
    const verdict = classifyAddress(address);
    expect(verdict.blocked).toBe(true);
    if (verdict.blocked) expect(verdict.reason).toContain(reason);
  });

  it.each([
    "93.184.215.14",
    "1.1.1.1",
    "8.8.8.8",
    "100.63.255.255",
    "100.128.0.0",
    "172.32.0.1",
    "198.20.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:93.184.215.14",
    "64:ff9b::8.8.8.8",
  ])("allows public %s", (address) => {
    expect(classifyAddress(address)).toEqual({ blocked: false });
  });

  it("reads lenient IPv4 numerals the way getaddrinfo does", () => {
    for (const trick of ["2130706433", "0x7f000001", "0x7f.1", "017700000001", "0177.0.0.1", "127.1", "127.0.1", "0"]) {
      expect(classifyAddress(trick).blocked, trick).toBe(true);
    }
    expect(classifyAddress("not-an-ip")).toMatchObject({ blocked: true, reason: "not an IP address" });
  });

  it("lets WEBHOOK_ALLOWED_TARGETS open specific ranges only, also through IPv4-mapped IPv6", () => {
    expect(classifyAddress("127.0.0.1", ["127.0.0.0/8"])).toEqual({ blocked: false });
    expect(classifyAddress("::ffff:127.0.0.1", ["127.0.0.0/8"])).toEqual({ blocked: false });
    expect(classifyAddress("::1", ["::1/128"])).toEqual({ blocked: false });
    expect(classifyAddress("10.0.0.1", ["127.0.0.0/8"]).blocked).toBe(true);
    expect(classifyAddress("::1", ["127.0.0.0/8"]).blocked).toBe(true);
  });
});

describe("parseLooseIPv4", () => {
  it("matches an independent inet_aton model on random numerals", () => {
    const formats = (n: number) => [String(n), `0x${n.toString(16)}`, `0${n.toString(8)}`];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 2 }), (n, f) => {
        const expected = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
        expect(parseLooseIPv4(formats(n)[f])).toBe(expected);
        // a.b.c form: last part fills 16 bits.
        const abc = `${n >>> 24}.${(n >>> 16) & 255}.${n & 0xffff}`;
        expect(parseLooseIPv4(abc)).toBe(expected);
      }),
    );
  });

  it("refuses what is not a numeral", () => {
    for (const text of ["1.2.3.4.5", "256.1.1.1", "1..2", "09", "1.2.3.256", "4294967296", "abc"]) {
      expect(parseLooseIPv4(text), text).toBeNull();
    }
  });
});

describe("parseCidr", () => {
  it("parses IPv4 and IPv6 ranges and refuses malformed ones", () => {
    expect(parseCidr("127.0.0.0/8")).toMatchObject({ family: 4, prefix: 8 });
    expect(parseCidr("::1/128")).toMatchObject({ family: 6, prefix: 128 });
    expect(parseCidr("10.0.0.1")).toMatchObject({ family: 4, prefix: 32 });
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0/8", "x/8", "1.2.3.4/8/9", ""]) expect(parseCidr(bad), bad).toBeNull();
  });
});

describe("checkWebhookUrl", () => {
  const policy = (resolver: HostResolver = noDns, allowedTargets: string[] = []) => ({ resolver, allowedTargets });

  it.each([
    ["http://93.184.215.14/hook", "https_required"],
    ["ftp://93.184.215.14/hook", "https_required"],
    ["not a url", "invalid_url"],
    ["https://user:pw@93.184.215.14/hook", "credentials_not_allowed"],
    ["https://127.0.0.1/hook", "blocked_address"],
    ["https://2130706433/hook", "blocked_address"],
    ["https://0x7f.1/hook", "blocked_address"],
    ["https://017700000001/hook", "blocked_address"],
    ["https://0177.0.0.1/hook", "blocked_address"],
    ["https://127.1/hook", "blocked_address"],
    ["https://0/hook", "blocked_address"],
    ["https://[::1]/hook", "blocked_address"],
    ["https://[::ffff:127.0.0.1]/hook", "blocked_address"],
    ["https://[::ffff:a9fe:a9fe]/hook", "blocked_address"],
    ["https://[64:ff9b::7f00:1]/hook", "blocked_address"],
    ["https://[fd00:ec2::254]/latest/meta-data", "blocked_address"],
    ["https://169.254.169.254/latest/meta-data", "blocked_address"],
    ["https://100.64.1.1/hook", "blocked_address"],
  ])("refuses %s (%s)", async (url, rule) => {
    expect(await checkWebhookUrl(url, policy())).toMatchObject({ rule });
  });

  it("accepts a public address literal without DNS", async () => {
    expect(await checkWebhookUrl("https://93.184.215.14:8443/hook?x=1", policy())).toBeNull();
  });

  it("resolves names and refuses when ANY answer is blocked", async () => {
    const dns = answers({
      "public.test": ["93.184.215.14", "2606:4700::6810:84e5"],
      "mixed.test": ["93.184.215.14", "10.0.0.7"],
      "mapped.test": ["::ffff:192.168.0.1"],
      "empty.test": [],
    });
    expect(await checkWebhookUrl("https://public.test/hook", policy(dns))).toBeNull();
    const mixed = await checkWebhookUrl("https://mixed.test/hook", policy(dns));
    expect(mixed).toMatchObject({ rule: "blocked_address" });
    expect(mixed?.message).toContain("10.0.0.7");
    expect(await checkWebhookUrl("https://mapped.test/hook", policy(dns))).toMatchObject({ rule: "blocked_address" });
    expect(await checkWebhookUrl("https://empty.test/hook", policy(dns))).toMatchObject({ rule: "unresolvable_host" });
    expect(await checkWebhookUrl("https://nowhere.test/hook", policy(dns))).toMatchObject({ rule: "unresolvable_host" });
  });

  it("resolves localhost through the system resolver and refuses it", async () => {
    const { systemResolver } = await import("./ssrf.ts");
    expect(await checkWebhookUrl("https://localhost:8443/hook", policy(systemResolver))).toMatchObject({ rule: "blocked_address" });
  });

  it("honours the allow-list for names too", async () => {
    const dns = answers({ "hooks.test": ["127.0.0.1"] });
    expect(await checkWebhookUrl("https://hooks.test/hook", policy(dns, ["127.0.0.0/8"]))).toBeNull();
    expect(await checkWebhookUrl("https://hooks.test/hook", policy(dns))).toMatchObject({ rule: "blocked_address" });
  });
});

describe("pinnedSocketConnector (WebSocket clients: NWC relays, phoenixd)", () => {
  /** A loopback WebSocket server counting the TCP connections it accepts (upgraded or not). */
  async function countingServer() {
    const sockets = new WebSocketServer({ noServer: true });
    const server = http.createServer();
    let connections = 0;
    server.on("connection", () => (connections += 1));
    server.on("upgrade", (req, socket, head) => sockets.handleUpgrade(req, socket, head, (client) => client.close()));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    return {
      port,
      connections: () => connections,
      close: () => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  /** Opens a WebSocket through the connector; resolves "open" or the error that refused it. */
  function connect(url: string, policy: { resolver: HostResolver; allowedTargets: string[] }): Promise<"open" | Error> {
    const socket = new WebSocket(url, { createConnection: pinnedSocketConnector(policy, { tls: false }) as never });
    return new Promise((resolve) => {
      socket.once("open", () => {
        socket.terminate();
        resolve("open");
      });
      socket.once("error", (err) => resolve(err));
    });
  }

  it("refuses a blocked IP literal before connecting, and lets an allowed one through", async () => {
    const server = await countingServer();
    try {
      const refused = await connect(`ws://127.0.0.1:${server.port}`, { resolver: noDns, allowedTargets: [] });
      expect(refused).toBeInstanceOf(BlockedTargetError);
      expect(server.connections()).toBe(0);
      expect(await connect(`ws://127.0.0.1:${server.port}`, { resolver: noDns, allowedTargets: ["127.0.0.0/8"] })).toBe("open");
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("resolves names through the policy and refuses a blocked answer (rebinding)", async () => {
    const server = await countingServer();
    try {
      const resolver = answers({ "relay.example.com": ["127.0.0.1"] });
      expect(await connect(`ws://relay.example.com:${server.port}`, { resolver, allowedTargets: [] })).toBeInstanceOf(BlockedTargetError);
      expect(server.connections()).toBe(0);
      expect(await connect(`ws://relay.example.com:${server.port}`, { resolver, allowedTargets: ["127.0.0.1/32"] })).toBe("open");
    } finally {
      await server.close();
    }
  });

  it("speaks TLS (wss) with the host name for SNI and certificate checks, and refuses the same way", async () => {
    const certificate = generateSelfSignedCertificate("localhost");
    const server = https.createServer({ key: certificate.keyPem, cert: certificate.certPem });
    const sockets = new WebSocketServer({ server });
    sockets.on("connection", (client) => client.close());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const open = (allowedTargets: string[]) =>
      new Promise<"open" | Error>((resolve) => {
        const socket = new WebSocket(`wss://localhost:${port}`, {
          ca: certificate.certPem,
          createConnection: pinnedSocketConnector({ resolver: answers({ localhost: ["127.0.0.1"] }), allowedTargets }, { tls: true }) as never,
        });
        socket.once("open", () => {
          socket.terminate();
          resolve("open");
        });
        socket.once("error", (err) => resolve(err));
      });
    try {
      expect(await open(["127.0.0.0/8"])).toBe("open");
      expect(await open([])).toBeInstanceOf(BlockedTargetError);
    } finally {
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
