// LUD-01's own example LNURL, and the checksum failing on any change.
import { describe, expect, it } from "vitest";
import { bech32Encode, encodeLnurl } from "./lnurl.ts";

describe("encodeLnurl", () => {
  it("reproduces the LUD-01 example", () => {
    expect(encodeLnurl("https://service.com/api?q=3fc3645b439ce8e7f2553a69e5267081d96dcd340693afabe04be7b0ccd178df")).toBe(
      "LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS",
    );
  });

  it("matches a BIP-173 test vector for the checksum", () => {
    // "a12uel5l" is the BIP-173 encoding of hrp "a" with no data.
    expect(bech32Encode("a", new Uint8Array())).toBe("a12uel5l");
  });
});
