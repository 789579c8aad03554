// The catalogue: every event has a schema and a documented example that satisfies it, and the
// schemas reject what receivers must never see.
import { describe, expect, it } from "vitest";
import { eventDataSchemas, eventDescriptions, eventExamples, WEBHOOK_EVENT_TYPES } from "./catalogue.ts";

describe("event catalogue", () => {
  it.each(WEBHOOK_EVENT_TYPES.map((t) => [t]))("%s example matches its schema exactly", (type) => {
    const parsed = eventDataSchemas[type].parse(eventExamples[type]);
    expect(parsed).toEqual(eventExamples[type]);
  });

  it("every event has a one-line description for the dashboard's picker, and nothing else does", () => {
    expect(Object.keys(eventDescriptions).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect(eventDescriptions[type], type).toMatch(/^[A-Z].{10,100}\.$/);
      expect(eventDescriptions[type], type).not.toContain("\n");
    }
  });

  it("node.capacity_changed carries exactly the spec 6.1 fields and pairs reason with status", () => {
    expect(Object.keys(eventExamples["node.capacity_changed"]).sort()).toEqual([
      "activeChannels",
      "nodeId",
      "reason",
      "receivingCapacitySat",
      "status",
      "totalCapacitySat",
      "totalChannels",
    ]);
    const schema = eventDataSchemas["node.capacity_changed"];
    expect(schema.safeParse({ ...eventExamples["node.capacity_changed"], status: "ok" }).success).toBe(false);
    expect(schema.safeParse({ ...eventExamples["node.capacity_changed"], status: "ok", reason: null }).success).toBe(true);
    expect(schema.safeParse({ ...eventExamples["node.capacity_changed"], reason: "sleepy" }).success).toBe(false);
  });

  it("invoice.settled rejects malformed hashes and local timestamps", () => {
    const schema = eventDataSchemas["invoice.settled"];
    expect(schema.safeParse({ ...eventExamples["invoice.settled"], paymentHash: "xyz" }).success).toBe(false);
    expect(schema.safeParse({ ...eventExamples["invoice.settled"], settledAt: "2026-11-21 12:00" }).success).toBe(false);
  });
});
