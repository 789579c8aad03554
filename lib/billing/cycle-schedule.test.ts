import { describe, expect, it } from "vitest";
import { billingStartsAt, cycleAt, cycleFrom, isDueForClosing, paymentDueAt, startOfHour } from "./cycle-schedule.ts";

const at = (iso: string) => new Date(iso);

describe("billing calendar", () => {
  it("starts billing trialDays after the hour of the first publication; never for an empty workspace", () => {
    expect(billingStartsAt({ trialStartedAt: null, trialDays: 30 })).toBeNull();
    expect(billingStartsAt({ trialStartedAt: at("2026-03-01T10:59:59.999Z"), trialDays: 30 })).toEqual(at("2026-03-31T10:00:00.000Z"));
    expect(billingStartsAt({ trialStartedAt: at("2026-03-01T10:00:00.000Z"), trialDays: 0 })).toEqual(at("2026-03-01T10:00:00.000Z"));
    expect(billingStartsAt({ trialStartedAt: at("2026-03-01T10:20:00.000Z"), trialDays: 90 })).toEqual(at("2026-05-30T10:00:00.000Z"));
    expect(startOfHour(at("2026-03-01T23:59:59.999Z"))).toEqual(at("2026-03-01T23:00:00.000Z"));
  });

  it("places an instant in its 30-day cycle: the start is in, the end is the next cycle's", () => {
    const start = at("2026-01-01T00:00:00.000Z");
    expect(cycleAt(start, at("2025-12-31T23:59:59.999Z"))).toBeNull();
    expect(cycleAt(start, start)).toEqual({ periodStart: start, periodEnd: at("2026-01-31T00:00:00.000Z") });
    expect(cycleAt(start, at("2026-01-30T23:59:59.999Z"))?.periodStart).toEqual(start);
    expect(cycleAt(start, at("2026-01-31T00:00:00.000Z"))).toEqual(cycleFrom(at("2026-01-31T00:00:00.000Z")));
    expect(cycleAt(start, at("2026-04-01T00:00:00.000Z"))?.periodStart).toEqual(at("2026-04-01T00:00:00.000Z")); // the fourth cycle
  });

  it("closes a cycle five minutes after its end and gives seven days to pay", () => {
    const end = at("2026-01-31T00:00:00.000Z");
    expect(isDueForClosing(end, at("2026-01-31T00:04:59.999Z"))).toBe(false);
    expect(isDueForClosing(end, at("2026-01-31T00:05:00.000Z"))).toBe(true);
    expect(paymentDueAt(at("2026-01-31T00:05:00.000Z"))).toEqual(at("2026-02-07T00:05:00.000Z"));
  });
});
