// Every JSON endpoint's contract: its example answers 200 in its documented shape with meta.source,
// an unknown parameter is a 400 naming it, and the same seed and instant give the same answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testMarketApp, type TestMarketApp } from "../test-app.ts";

let t: TestMarketApp;
let twin: TestMarketApp;
beforeAll(async () => {
  [t, twin] = await Promise.all([testMarketApp(), testMarketApp()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.app.close(), twin?.app.close()]);
});

function examplePath(path: string, example: Record<string, string>) {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(example[name]));
}
function exampleQuery(path: string, example: Record<string, string>) {
  return Object.fromEntries(Object.entries(example).filter(([name]) => !path.includes(`{${name}}`)));
}

describe("every JSON endpoint", () => {
  it("answers its example in its documented shape, with meta.source", async () => {
    const json = t.app.endpoints.filter((e) => e.kind === "json");
    expect(json.length).toBeGreaterThanOrEqual(21);
    for (const endpoint of json) {
      const answer = await t.get(examplePath(endpoint.path, endpoint.example), exampleQuery(endpoint.path, endpoint.example));
      expect(answer.status, endpoint.path).toBe(200);
      const parsed = endpoint.response.safeParse(answer.body);
      expect(parsed.success, `${endpoint.path}: ${JSON.stringify(parsed.error?.issues.slice(0, 3))}`).toBe(true);
      expect(answer.body.meta, endpoint.path).toMatchObject({ source: "simulated", generated_at: "2026-11-26T12:00:30.000Z" });
    }
  });

  it("refuses an unknown parameter with a 400 naming it", async () => {
    for (const endpoint of t.app.endpoints) {
      const answer = await t.request(examplePath(endpoint.path, endpoint.example), { ...exampleQuery(endpoint.path, endpoint.example), colour: "blue" });
      expect("stream" in answer, endpoint.path).toBe(false);
      expect(answer.status, endpoint.path).toBe(400);
      expect((answer as { body: any }).body.error, endpoint.path).toMatchObject({ code: "invalid_parameter", field: "colour" });
    }
  });

  it("answers the same for the same seed and instant", async () => {
    for (const endpoint of t.app.endpoints.filter((e) => e.kind === "json")) {
      const path = examplePath(endpoint.path, endpoint.example);
      const query = exampleQuery(endpoint.path, endpoint.example);
      expect((await t.get(path, query)).body, endpoint.path).toEqual((await twin.get(path, query)).body);
    }
  });

  it("takes GET only, and names the API description on an unknown path", async () => {
    expect((await t.request("/v1/market/snapshot", {}, "POST")).status).toBe(405);
    const missing = await t.get("/v1/market/nothing");
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/openapi\.json/);
  });
});
