// POST /api/external-listings and GET /api/external-listings/:slug/status (spec 2.5, 4.4, 8): every
// bound of spec 8 answered 422 naming the field, unicode counted in characters, bad JSON and oversize
// bodies, 409 on a slug taken by a listing, a workspace or the platform, the per-IP rate limit, and
// the webhooks' SSRF rules on gatewayUrl. Real route handlers on a real database (PGlite by default).
import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/external-listings/route.ts";
import { GET as STATUS } from "@/app/api/external-listings/[slug]/status/route.ts";
import { call, seedTenant, useApiContext, type CallResult } from "@/tests/api/helpers.ts";

const PER_HOUR = 5;
const api = useApiContext({ LISTING_SUBMISSIONS_PER_HOUR: String(PER_HOUR) });

// Every call comes from its own address unless a test says otherwise, so the rate limit stays out of the way.
let nextIp = 1;
const freshIp = () => `198.51.100.${nextIp++}`;

/** A public IP literal: passes the SSRF rules without DNS (the review, not submission, connects). */
const PUBLIC_GATEWAY = "https://93.184.216.34/gw/acme";

function valid(overrides: Record<string, unknown> = {}) {
  return {
    slug: "acme-weather",
    name: "Acme Weather",
    description: "Forecasts by coordinates, paid per call.",
    tags: ["weather", "forecast"],
    gatewayUrl: PUBLIC_GATEWAY,
    contactEmail: "Ops@Acme.example",
    endpoints: [
      { path: "/v1/forecast", method: "get", title: "Forecast", description: "Hourly forecast", pricingModel: "per_request", priceSats: 10 },
      { path: "/v1/ping", method: "GET", title: "Ping", description: "Free health check" },
    ],
    ...overrides,
  };
}

function submit(body: unknown, ip = freshIp()): Promise<CallResult> {
  return call(POST, { method: "POST", path: "/external-listings", body, headers: { "x-hub-client-ip": ip } });
}

function fieldsOf(res: CallResult): string[] {
  return (res.body.error.details.fields as { field: string }[]).map((f) => f.field);
}

async function expect422(body: unknown, field: string) {
  const res = await submit(body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.error.code).toBe("validation_failed");
  expect(fieldsOf(res)).toContain(field);
  expect(res.body.error.message).toContain(field);
  return res;
}

describe("POST /api/external-listings", () => {
  it("accepts a valid submission as pending (202), lowercasing slug and e-mail, and shows its status", async () => {
    const res = await submit(valid({ slug: "Acme-Weather" }));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      slug: "acme-weather",
      name: "Acme Weather",
      status: "pending",
      statusUrl: "http://127.0.0.1:3000/api/external-listings/acme-weather/status",
    });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    expect(res.body).not.toHaveProperty("findings");

    const row = await api.test().db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "acme-weather" } });
    expect(row).toMatchObject({
      contactEmail: "ops@acme.example",
      gatewayUrl: PUBLIC_GATEWAY,
      status: "pending",
      reviewAttempts: 0,
      tags: ["weather", "forecast"],
    });
    expect(row.reviewDueAt).not.toBeNull();
    expect(row.endpoints).toEqual([
      { path: "/v1/forecast", method: "GET", title: "Forecast", description: "Hourly forecast", pricingModel: "per_request", priceSats: 10 },
      { path: "/v1/ping", method: "GET", title: "Ping", description: "Free health check", pricingModel: null, priceSats: 0 },
    ]);

    const status = await call(STATUS, { method: "GET", path: "/external-listings/ACME-WEATHER/status", params: { slug: "ACME-WEATHER" } });
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ slug: "acme-weather", name: "Acme Weather", status: "pending", createdAt: res.body.createdAt });
  });

  it("takes only the required fields (endpoints then come from discovery at review time)", async () => {
    const res = await submit({ slug: "min", name: "Minimal", gatewayUrl: "https://93.184.216.34", contactEmail: "a@b.example" });
    expect(res.status).toBe(202);
    const row = await api.test().db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "min" } });
    expect(row).toMatchObject({ description: "", tags: [], endpoints: [], gatewayUrl: "https://93.184.216.34" });
  });

  it("shows the decision's summary and every finding once reviewed", async () => {
    await submit(valid());
    const findings = [
      { check: "challenge", endpoint: "GET /v1/forecast", outcome: "fail", message: "answered 200 without payment" },
      { check: "content", endpoint: null, outcome: "pass", message: "fine" },
      { check: "payment", endpoint: "GET /v1/forecast", outcome: "skip", message: "no wallet" },
    ];
    await api.test().db.prisma.externalListing.update({
      where: { slug: "acme-weather" },
      data: { status: "rejected", reviewNotes: "Rejected: 1 problem", findings, reviewedAt: new Date("2026-01-02T03:04:05Z") },
    });
    const status = await call(STATUS, { method: "GET", path: "/external-listings/acme-weather/status", params: { slug: "acme-weather" } });
    expect(status.body).toEqual({
      slug: "acme-weather",
      name: "Acme Weather",
      status: "rejected",
      createdAt: expect.any(String),
      reviewedAt: "2026-01-02T03:04:05.000Z",
      summary: "Rejected: 1 problem",
      // `ok` is false exactly for failures (a skip is not one).
      findings: findings.map((f) => ({ ...f, ok: f.outcome !== "fail" })),
    });
  });

  it("answers 404 naming the slug when there is no such listing", async () => {
    const res = await call(STATUS, { method: "GET", path: "/external-listings/nope/status", params: { slug: "nope" } });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "not_found" });
    expect(res.body.error.message).toContain("nope");
  });
});

describe("bounds (spec 8): 422 naming each field", () => {
  it("slug: 3 to 63 letters, digits and hyphens", async () => {
    await expect422(valid({ slug: "ab" }), "slug");
    await expect422(valid({ slug: "a".repeat(64) }), "slug");
    await expect422(valid({ slug: "bad_slug" }), "slug");
    await expect422(valid({ slug: "café" }), "slug");
    await expect422(valid({ slug: 42 }), "slug");
    await expect422(valid({ slug: undefined }), "slug");
    expect((await submit(valid({ slug: "a".repeat(63) }))).status).toBe(202);
    expect((await submit(valid({ slug: "abc" }))).status).toBe(202);
  });

  it("name: required, at most 200 characters counted as characters (one emoji is one)", async () => {
    await expect422(valid({ name: "" }), "name");
    await expect422(valid({ name: "   " }), "name");
    await expect422(valid({ name: undefined }), "name");
    await expect422(valid({ name: "x".repeat(201) }), "name");
    await expect422(valid({ name: "🚀".repeat(201) }), "name");
    expect((await submit(valid({ slug: "emoji-200", name: "🚀".repeat(200) }))).status).toBe(202);
    const stored = await api.test().db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "emoji-200" } });
    expect([...stored.name]).toHaveLength(200);
    expect((await submit(valid({ slug: "plain-200", name: "Ö".repeat(200) }))).status).toBe(202);
  });

  it("description: at most 1000 characters", async () => {
    await expect422(valid({ description: "d".repeat(1001) }), "description");
    await expect422(valid({ description: 7 }), "description");
    expect((await submit(valid({ slug: "desc-1000", description: "漢".repeat(1000) }))).status).toBe(202);
  });

  it("tags: at most 10, each a non-empty string", async () => {
    await expect422(valid({ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }), "tags");
    await expect422(valid({ tags: [""] }), "tags.0");
    await expect422(valid({ tags: "weather" }), "tags");
    expect((await submit(valid({ slug: "ten-tags", tags: Array.from({ length: 10 }, (_, i) => `t${i}`) }))).status).toBe(202);
  });

  it("gatewayUrl: an absolute https base address without credentials, query or fragment", async () => {
    await expect422(valid({ gatewayUrl: "http://93.184.216.34" }), "gatewayUrl");
    await expect422(valid({ gatewayUrl: "gateway.example.com" }), "gatewayUrl");
    await expect422(valid({ gatewayUrl: "https://user:pw@93.184.216.34" }), "gatewayUrl");
    await expect422(valid({ gatewayUrl: "https://93.184.216.34/?a=1" }), "gatewayUrl");
    await expect422(valid({ gatewayUrl: `https://93.184.216.34/${"p".repeat(2048)}` }), "gatewayUrl");
    await expect422(valid({ gatewayUrl: undefined }), "gatewayUrl");
  });

  it("contactEmail: an e-mail address", async () => {
    await expect422(valid({ contactEmail: "not-an-address" }), "contactEmail");
    await expect422(valid({ contactEmail: undefined }), "contactEmail");
    await expect422(valid({ contactEmail: `${"a".repeat(250)}@b.example` }), "contactEmail");
  });

  it("endpoints: 1 to 50 items, each with a path, a method and consistent pricing", async () => {
    const e = valid().endpoints[0];
    await expect422(valid({ endpoints: [] }), "endpoints");
    await expect422(valid({ endpoints: Array.from({ length: 51 }, (_, i) => ({ ...e, path: `/v1/e${i}` })) }), "endpoints");
    await expect422(valid({ endpoints: [{ ...e, path: "v1/no-slash" }] }), "endpoints.0.path");
    await expect422(valid({ endpoints: [{ ...e, path: "/v1/has space" }] }), "endpoints.0.path");
    await expect422(valid({ endpoints: [{ ...e, method: "TRACE" }] }), "endpoints.0.method");
    await expect422(valid({ endpoints: [{ ...e, pricingModel: "per_second" }] }), "endpoints.0.pricingModel");
    await expect422(valid({ endpoints: [{ ...e, priceSats: undefined }] }), "endpoints.0.priceSats");
    await expect422(valid({ endpoints: [{ ...e, priceSats: 1.5 }] }), "endpoints.0.priceSats");
    await expect422(valid({ endpoints: [{ ...e, priceSats: -1 }] }), "endpoints.0.priceSats");
    await expect422(valid({ endpoints: [{ ...e, pricingModel: undefined }] }), "endpoints.0.pricingModel");
    await expect422(valid({ endpoints: [{ ...e, title: "t".repeat(201) }] }), "endpoints.0.title");
    await expect422(valid({ endpoints: [{ ...e, description: "d".repeat(1001) }] }), "endpoints.0.description");
    await expect422(valid({ endpoints: [{ ...e, secret: "x" }] }), "endpoints.0.secret");
  });

  it("names every bad field at once, and unknown fields too", async () => {
    const res = await submit({ slug: "x", name: "", gatewayUrl: "ftp://a", contactEmail: "nope", colour: "red" });
    expect(res.status).toBe(422);
    expect(fieldsOf(res).sort()).toEqual(["colour", "contactEmail", "gatewayUrl", "name", "slug"]);
  });

  it("answers 400 on a body that is not JSON, and 413 on one over 1 MB", async () => {
    const bad = await submit("{not json");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_json");
    const empty = await submit("");
    expect(empty.status).toBe(400);
    const huge = await submit(JSON.stringify(valid({ description: "x".repeat(1_100_000) })));
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe("payload_too_large");
    expect(await api.test().db.prisma.externalListing.count()).toBe(0);
  });
});

describe("slug conflicts: 409", () => {
  it("refuses a slug taken by a listing, whatever its case", async () => {
    expect((await submit(valid())).status).toBe(202);
    for (const slug of ["acme-weather", "ACME-Weather"]) {
      const again = await submit(valid({ slug, contactEmail: "other@example.com" }));
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: "conflict", details: { field: "slug" } });
      expect(again.body.error.message).toContain("taken by another listing");
    }
    expect(await api.test().db.prisma.externalListing.count()).toBe(1);
  });

  it("refuses a slug taken by a hosted workspace, and a reserved one", async () => {
    await seedTenant(api.test(), "acme");
    const tenant = await submit(valid({ slug: "acme" }));
    expect(tenant.status).toBe(409);
    expect(tenant.body.error.message).toContain("taken by a hosted API");
    const reserved = await submit(valid({ slug: "admin" }));
    expect(reserved.status).toBe(409);
    expect(reserved.body.error.message).toContain("reserved");
  });

  it("gives one of two simultaneous submissions of a slug the listing and the other a 409", async () => {
    const [a, b] = await Promise.all([submit(valid()), submit(valid({ contactEmail: "b@example.com" }))]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    expect(await api.test().db.prisma.externalListing.count()).toBe(1);
  });
});

describe("gatewayUrl and the SSRF rules of webhooks", () => {
  it.each([
    ["https://127.0.0.1:8443", "loopback"],
    ["https://10.1.2.3", "private"],
    ["https://169.254.169.254", "cloud metadata"],
    ["https://[::1]", "loopback"],
    ["https://[::ffff:192.168.1.1]", "private"],
    ["https://2130706433", "loopback"],
  ])("refuses %s (%s) with 422 naming gatewayUrl and the rule", async (gatewayUrl, reason) => {
    const res = await expect422(valid({ gatewayUrl }), "gatewayUrl");
    expect(res.body.error.details.fields[0]).toMatchObject({ field: "gatewayUrl", rule: "blocked_address" });
    expect(res.body.error.message).toContain(reason);
  });

  it("refuses a host name that does not resolve", async () => {
    const res = await expect422(valid({ gatewayUrl: "https://no-such-host.invalid" }), "gatewayUrl");
    expect(res.body.error.details.fields[0].rule).toBe("unresolvable_host");
  });
});

describe("rate limit per client IP", () => {
  it(`allows ${PER_HOUR} submissions an hour, then 429 with Retry-After, valid or not`, async () => {
    const ip = "203.0.113.7";
    for (let i = 0; i < PER_HOUR; i++) {
      const res = await submit(i === 0 ? valid() : "{bad", ip);
      expect(res.status).not.toBe(429);
    }
    const limited = await submit(valid({ slug: "another-one" }), ip);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.body.error.details.retryAfterSeconds).toBe(Number(limited.headers.get("retry-after")));
    expect(await api.test().db.prisma.externalListing.findUnique({ where: { slug: "another-one" } })).toBeNull();
    // Another client is not affected.
    expect((await submit(valid({ slug: "another-one" }), "203.0.113.8")).status).toBe(202);
  });

  it("counts an IPv6 client by its /64", async () => {
    for (let i = 0; i < PER_HOUR; i++) expect((await submit("{bad", `2001:db8:7:7::${i + 1}`)).status).toBe(400);
    expect((await submit("{bad", "2001:db8:7:7:ffff::1")).status).toBe(429);
    expect((await submit("{bad", "2001:db8:7:8::1")).status).toBe(400);
  });
});
