// The demo origin's session-model and stream endpoints (signature checks are covered by the gateway tests).
import { describe, expect, it } from "vitest";
import { luckyNumbers } from "./origin.ts";

describe("luckyNumbers", () => {
  it("depends only on the name (case-insensitive) and stays within 1..99", () => {
    expect(luckyNumbers("Alice", 5)).toEqual(luckyNumbers("alice", 5));
    expect(luckyNumbers("alice", 5)).not.toEqual(luckyNumbers("bob", 5));
    for (const n of luckyNumbers("satoshi", 10)) expect(n >= 1 && n <= 99).toBe(true);
    expect(luckyNumbers("x", 3)).toHaveLength(3);
  });
});
