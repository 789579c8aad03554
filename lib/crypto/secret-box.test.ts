import { describe, expect, it } from "vitest";
import { hashToken, openSecret, randomToken, safeEqual, sealSecret } from "./secret-box.ts";

const key = "k".repeat(40);

describe("secret box", () => {
  it("round-trips unicode and never stores the plaintext", () => {
    const sealed = sealSecret(key, "nwc://sëcret");
    expect(sealed).not.toContain("cret");
    expect(openSecret(key, sealed)).toBe("nwc://sëcret");
    expect(sealSecret(key, "same")).not.toBe(sealSecret(key, "same"));
  });

  it("refuses tampering and the wrong key", () => {
    const sealed = sealSecret(key, "secret");
    const parts = sealed.split(".");
    // Always a different first character (writing a fixed prefix left the box intact 1 time in 4,096).
    parts[3] = (parts[3][0] === "A" ? "B" : "A") + parts[3].slice(1);
    expect(() => openSecret(key, parts.join("."))).toThrow();
    expect(() => openSecret("other".repeat(10), sealed)).toThrow();
    expect(() => openSecret(key, "garbage")).toThrow(/Malformed/);
  });

  it("hashes and compares tokens", () => {
    const token = randomToken("hub_sk_");
    expect(token).toMatch(/^hub_sk_[A-Za-z0-9_-]{32}$/);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
  });

  it("hashes a token to the SHA-256 hex of its UTF-8 bytes, the form stored keys and sessions were saved in", () => {
    // Known answers (FIPS 180-2's "abc", and sha256sum of the UTF-8 text): a change of encoding
    // would lock out every stored API key and session token.
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashToken("hst_sëssion")).toBe("cb7e4995c8af02273d48707bb0036a805821b4d7049e3dc84d3e62903e6e06c4");
  });
});
