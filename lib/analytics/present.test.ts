// The analytics wording: bucket labels in UTC per granularity, and the screen-reader summary.
import { describe, expect, it } from "vitest";
import { analyticsSummary, axisLabel, bucketLabel, hasTraffic, plural } from "./present.ts";
import type { AnalyticsResponse } from "./schemas.ts";

const zero = { requests: 0, paidRequests: 0, servedRequests: 0, refunds: 0, upstreamErrors: 0, earningsSats: 0 };
const bucket = (start: string, counts: Partial<typeof zero> = {}) => ({ start, ...zero, ...counts });

describe("bucket labels", () => {
  it.each([
    ["2026-11-21T00:00:00.000Z", "day", "Nov 21", "Nov 21"],
    ["2026-11-16T00:00:00.000Z", "week", "Week of Nov 16", "Nov 16"],
    ["2026-11-01T00:00:00.000Z", "month", "Nov 2026", "Nov 2026"],
    // UTC midnight stays on its own day whatever the machine's time zone.
    ["2027-01-01T00:00:00.000Z", "day", "Jan 1", "Jan 1"],
  ] as const)("%s by %s reads %s", (start, g, label, axis) => {
    expect(bucketLabel(start, g)).toBe(label);
    expect(axisLabel(start, g)).toBe(axis);
  });

  it("pluralises with grouped thousands", () => {
    expect(plural(1, "sat")).toBe("1 sat");
    expect(plural(0, "request")).toBe("0 requests");
    expect(plural(12500, "request")).toBe("12,500 requests");
    expect(plural(2, "entry", "entries")).toBe("2 entries");
  });
});

describe("analyticsSummary", () => {
  it("names the range when there is no traffic", () => {
    const a = { granularity: "day" as const, totals: zero, series: [bucket("2026-11-20T00:00:00.000Z"), bucket("2026-11-21T00:00:00.000Z")] };
    expect(hasTraffic(a)).toBe(false);
    expect(analyticsSummary(a)).toBe("No requests and no earnings from Nov 20 to Nov 21.");
  });

  it("gives totals, the busiest bucket and the best-earning one (earliest on ties)", () => {
    const a: Pick<AnalyticsResponse, "granularity" | "series" | "totals"> = {
      granularity: "week",
      totals: { ...zero, requests: 14, paidRequests: 6, earningsSats: 30 },
      series: [
        bucket("2026-11-02T00:00:00.000Z", { requests: 2, paidRequests: 1, earningsSats: 10 }),
        bucket("2026-11-09T00:00:00.000Z", { requests: 10, paidRequests: 4, earningsSats: 10 }),
        bucket("2026-11-16T00:00:00.000Z", { requests: 2, paidRequests: 1, earningsSats: 10 }),
      ],
    };
    expect(hasTraffic(a)).toBe(true);
    expect(analyticsSummary(a)).toBe(
      "From Week of Nov 2 to Week of Nov 16: 14 requests, 6 paid requests, 30 sats earned. Most requests: Week of Nov 9 (10 requests, 4 paid). Highest earnings: Week of Nov 2 (10 sats).",
    );
  });

  it("counts earnings without requests as traffic (a payer who never redeemed) and skips an empty 'most requests'", () => {
    const a = { granularity: "month" as const, totals: { ...zero, earningsSats: 1 }, series: [bucket("2026-11-01T00:00:00.000Z", { earningsSats: 1 })] };
    expect(hasTraffic(a)).toBe(true);
    expect(analyticsSummary(a)).toBe("From Nov 2026 to Nov 2026: 0 requests, 0 paid requests, 1 sat earned. Highest earnings: Nov 2026 (1 sat).");
  });

  it("says so when the series is empty", () => {
    expect(analyticsSummary({ granularity: "day", totals: zero, series: [] })).toBe("No data in this range.");
  });
});
