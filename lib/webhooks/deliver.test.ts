// Pure parts of delivery: the retry schedule with Retry-After, and bounded snippets.
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs, snippet } from "./deliver.ts";

describe("retryDelayMs", () => {
  it("follows spec 8: 10 s, 1 min, 5 min, then failed", () => {
    expect(MAX_ATTEMPTS).toBe(4);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, null))).toEqual([10_000, 60_000, 300_000, null]);
  });

  it("honours a longer Retry-After up to the cap, ignores a shorter one", () => {
    expect(retryDelayMs(1, 5_000)).toBe(10_000);
    expect(retryDelayMs(1, 120_000)).toBe(120_000);
    expect(retryDelayMs(2, 10 * 3600_000)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(4, 120_000)).toBeNull();
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-21T12:00:00Z");
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Sat, 21 Nov 2026 12:02:00 GMT", now)).toBe(120_000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe("snippet", () => {
  it("keeps at most 2048 UTF-8 bytes without splitting a character", () => {
    expect(snippet("short")).toBe("short");
    const long = "é".repeat(3000);
    const cut = snippet(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(2048);
    expect(cut).toBe("é".repeat(1024));
    expect(snippet(`a${"€".repeat(1000)}`).endsWith("€")).toBe(true);
  });
});
