import { describe, expect, it } from "vitest";
import { clientIpResolver, rateLimitClient } from "./client-address.ts";

describe("rateLimitClient", () => {
  it.each([
    ["198.51.100.7", "198.51.100.7"],
    ["::ffff:198.51.100.7", "198.51.100.7"],
    ["::ffff:c633:6407", "198.51.100.7"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
    ["not an ip", "not an ip"],
  ])("%s → %s", (ip, client) => expect(rateLimitClient(ip)).toBe(client));
});

describe("clientIpResolver", () => {
  it("ignores X-Forwarded-For unless the peer is a trusted proxy", () => {
    expect(clientIpResolver([])("198.51.100.1", "1.2.3.4")).toBe("198.51.100.1");
    const resolve = clientIpResolver(["10.0.0.0/8", "::1"]);
    expect(resolve("198.51.100.1", "1.2.3.4")).toBe("198.51.100.1");
    expect(resolve("10.1.2.3", "1.2.3.4, 10.9.9.9")).toBe("1.2.3.4");
    expect(resolve("::ffff:10.1.2.3", "5.6.7.8")).toBe("5.6.7.8");
    expect(resolve("::1", ["7.7.7.7", "10.0.0.1"])).toBe("7.7.7.7");
    expect(resolve("10.1.2.3", "not-an-ip")).toBe("10.1.2.3");
  });

  it("refuses a malformed TRUSTED_PROXIES entry", () => {
    expect(() => clientIpResolver(["ten.0.0.0/8"])).toThrow(/TRUSTED_PROXIES/);
  });
});
