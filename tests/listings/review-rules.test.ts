// The review's pure rules, table by table: what a meaningful answer is, the content policy, reading
// discovery documents (ours and OpenAPI with x-l402-pricing), BOLT11 amount and expiry, and how an
// endpoint is called (paths under the gateway's base path, parameters, query, body).
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encode as encodeBolt11, sign as signBolt11 } from "bolt11";
import { checkContentPolicy } from "@/lib/listings/content-policy.ts";
import { endpointsFromGatewayDiscovery, endpointsFromOpenApi } from "@/lib/listings/discovery-document.ts";
import { meaninglessReason } from "@/lib/listings/meaningful-response.ts";
import { endpointRequest, endpointUrl, readInvoice } from "@/lib/listings/review-listing.ts";
import { listingReviewMail } from "@/lib/listings/review-mail.ts";

const answer = (
  status: number,
  mediaType: string,
  body: string,
  extra: { truncated?: boolean; firstEvent?: { event: string | undefined; data: string } | null } = {},
) => ({
  status,
  mediaType,
  body: Buffer.from(body),
  truncated: extra.truncated ?? false,
  firstEvent: extra.firstEvent ?? null,
});

describe("meaningful paid answers", () => {
  it.each([
    [answer(200, "application/json", '{"a":1}'), null],
    [answer(200, "application/problem+json", '{"a":1}'), null],
    [answer(200, "application/json", "[0]"), null],
    [answer(200, "application/json", "0"), null],
    [answer(200, "application/json", "{}"), "the JSON body is empty ({})"],
    [answer(200, "application/json", " [] "), "the JSON body is empty ([])"],
    [answer(200, "application/json", "null"), "the JSON body is empty (null)"],
    [answer(200, "application/json", '""'), 'the JSON body is empty ("")'],
    [answer(200, "application/json", "{oops"), "the body is not valid JSON although Content-Type says application/json"],
    [answer(200, "application/json", '{"a":', { truncated: true }), null],
    [answer(200, "application/json", ""), "the body is empty"],
    [answer(200, "text/plain", "  \n "), "the body is blank"],
    [answer(200, "text/csv", "a,b\n1,2"), null],
    [answer(200, "", "bytes"), null],
    [answer(200, "image/png", "\x89PNG"), null],
    [answer(204, "", ""), "the body is empty"],
    [answer(201, "application/json", '{"id":1}'), null],
    [answer(500, "application/json", '{"a":1}'), "answered 500, not a 2xx"],
    [answer(200, "text/event-stream", ": hi\n\n"), "the stream opened but sent no event within the time limit"],
    [answer(200, "text/event-stream", "data: x\n\n", { firstEvent: { event: undefined, data: "x" } }), null],
  ])("%#: %o → %s", (res, expected) => {
    expect(meaninglessReason(res)).toBe(expected);
  });
});

describe("content policy", () => {
  const ok = {
    name: "Acme Weather",
    description: "Hourly forecasts.",
    tags: ["weather"],
    endpoints: [{ method: "GET", path: "/v1/forecast", title: "Forecast", description: "" }],
  };
  const fails = (texts: Partial<typeof ok>, deny: string[] = []) =>
    checkContentPolicy({ ...ok, ...texts }, deny)
      .filter((f) => f.outcome === "fail")
      .map((f) => f.message);

  it("passes ordinary texts with one finding", () => {
    expect(checkContentPolicy(ok, ["casino"])).toEqual([
      { check: "content", endpoint: null, outcome: "pass", message: "name, description, tags and endpoint texts meet the content policy" },
    ]);
  });

  it("finds deny-listed terms anywhere, in any case or Unicode spelling, naming where", () => {
    expect(fails({ tags: ["CASINO"] }, ["casino"])).toEqual(['tags contains "casino", which the platform\'s content policy does not allow']);
    // Full-width letters fold to ASCII under NFKC.
    expect(fails({ description: "Ｃａｓｉｎｏ odds" }, ["casino"])).toHaveLength(1);
    const [finding] = checkContentPolicy({ ...ok, endpoints: [{ method: "GET", path: "/v1/casino", title: "x", description: "" }] }, ["Casino"]).filter(
      (f) => f.outcome === "fail",
    );
    expect(finding).toMatchObject({ endpoint: "GET /v1/casino", message: 'path contains "casino", which the platform\'s content policy does not allow' });
  });

  it.each([
    [{ name: "!!!" }, "name has no letter or digit"],
    [{ name: "Acme\u0007" }, "name contains control or invisible formatting characters"],
    [{ name: "Acme\u200bWeather" }, "name contains control or invisible formatting characters"],
    [{ name: "Acme\nWeather" }, "name contains control or invisible formatting characters"],
    [{ name: "see https://acme.example" }, "name is or holds a URL; give the API's name (the gateway URL is listed separately)"],
    [{ name: "Acmeeeeeeeeeeee" }, 'name repeats "e" more than 10 times in a row'],
    [{ description: "Fast!!!!!!!!!!!!" }, 'description repeats "!" more than 10 times in a row'],
    [{ description: "bad\u0000byte" }, "description contains control or invisible formatting characters"],
    [{ description: "acme weather" }, "description only repeats the name; say what the API does"],
  ])("refuses %o", (texts, message) => {
    expect(fails(texts)).toEqual([message]);
  });

  it("allows line breaks in a description, non-Latin names and emoji sequences", () => {
    expect(fails({ name: "天気予報", description: "Line one.\r\n\tLine two." })).toEqual([]);
    expect(fails({ name: "می\u200cخواهم", description: "Family 👨\u200d👩\u200d👧 plans" })).toEqual([]);
  });

  it("refuses direction overrides that reorder what readers see", () => {
    expect(fails({ description: "safe \u202Etxt.exe" })).toEqual(["description contains control or invisible formatting characters"]);
  });
});

describe("discovery documents", () => {
  it("reads our l402-gateway.json layout, pricing and examples", () => {
    const found = endpointsFromGatewayDiscovery({
      endpoints: [
        {
          method: "GET",
          path: "/v1/forecast",
          title: "Forecast",
          description: "d",
          pricing: { model: "per_request", priceSats: 10 },
          exampleRequest: { query: { city: "x" } },
        },
        { method: "GET", path: "/v1/ping", title: "Ping", pricing: null },
        { method: "TRACE", path: "/v1/odd", pricing: null },
        { method: "GET", path: "/v1/zero", pricing: { model: "per_request", priceSats: 0 } },
        "not an object",
      ],
    });
    expect(found).toEqual({
      format: "l402-gateway.json",
      invalid: 2,
      endpoints: [
        {
          method: "GET",
          path: "/v1/forecast",
          title: "Forecast",
          description: "d",
          pricingModel: "per_request",
          priceSats: 10,
          example: { query: { city: "x" } },
        },
        { method: "GET", path: "/v1/ping", title: "Ping", description: "", pricingModel: null, priceSats: 0, example: undefined },
      ],
    });
    expect(endpointsFromGatewayDiscovery({ openapi: "3.1.0" })).toBeNull();
    expect(endpointsFromGatewayDiscovery(null)).toBeNull();
  });

  it("reads OpenAPI operations, priced by x-l402-pricing, with parameter and body examples", () => {
    const found = endpointsFromOpenApi({
      openapi: "3.1.0",
      paths: {
        "/v1/items/{id}": {
          get: {
            summary: "Item",
            parameters: [
              { name: "id", in: "path", example: "42" },
              { name: "q", in: "query", example: "x" },
            ],
            "x-l402-pricing": { model: "time_pass", priceSats: 50 },
          },
          post: {
            summary: "Add",
            requestBody: { content: { "application/json": { example: { a: 1 } } } },
            "x-l402-pricing": { model: "per_request", priceSats: 2 },
          },
          parameters: [],
        },
        "/v1/health": { get: { description: "up?" } },
      },
    });
    expect(found?.endpoints).toEqual([
      {
        method: "GET",
        path: "/v1/items/{id}",
        title: "Item",
        description: "",
        pricingModel: "time_pass",
        priceSats: 50,
        example: { query: { q: "x" }, path: { id: "42" } },
      },
      { method: "POST", path: "/v1/items/{id}", title: "Add", description: "", pricingModel: "per_request", priceSats: 2, example: { body: { a: 1 } } },
      { method: "GET", path: "/v1/health", title: "", description: "up?", pricingModel: null, priceSats: 0, example: {} },
    ]);
    expect(endpointsFromOpenApi({ swagger: "2.0", paths: {} })).toBeNull();
  });
});

describe("calling an endpoint", () => {
  it("appends paths to the gateway's base path", () => {
    expect(endpointUrl("https://hub.example/gw/acme", "/v1/x")).toBe("https://hub.example/gw/acme/v1/x");
    expect(endpointUrl("https://l402.acme.example", "/v1/x")).toBe("https://l402.acme.example/v1/x");
    expect(endpointUrl("https://hub.example/gw/acme/", "/.well-known/openapi.json")).toBe("https://hub.example/gw/acme/.well-known/openapi.json");
  });

  it("fills path parameters, adds the example query, and sends a JSON body on body methods", () => {
    const base = { title: "", description: "", pricingModel: "per_request" as const, priceSats: 1 };
    expect(
      endpointRequest("https://g.example/gw/a", {
        ...base,
        method: "GET",
        path: "/v1/items/{id}/:part",
        example: { path: { id: "a b" }, query: { n: 2, f: { x: 1 } } },
      }),
    ).toEqual({
      method: "GET",
      url: "https://g.example/gw/a/v1/items/a%20b/probe?n=2&f=%7B%22x%22%3A1%7D",
    });
    expect(endpointRequest("https://g.example", { ...base, method: "POST", path: "/v1/add" })).toEqual({
      method: "POST",
      url: "https://g.example/v1/add",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(endpointRequest("https://g.example", { ...base, method: "PUT", path: "/v1/add", example: { body: { a: 1 } } }).body).toBe('{"a":1}');
  });
});

describe("reading invoices", () => {
  const network = { bech32: "bcrt", pubKeyHash: 111, scriptHash: 196, validWitnessVersions: [0, 1] };
  const invoice = (fields: { satoshis?: number; millisatoshis?: string; timestamp: number; expire?: number }) => {
    const tags: { tagName: string; data: unknown }[] = [
      { tagName: "payment_hash", data: createHash("sha256").update(randomBytes(32)).digest("hex") },
      { tagName: "description", data: "x" },
    ];
    if (fields.expire !== undefined) tags.push({ tagName: "expire_time", data: fields.expire });
    const unsigned = encodeBolt11(
      { network, satoshis: fields.satoshis, millisatoshis: fields.millisatoshis, timestamp: fields.timestamp, tags } as never,
      false,
    );
    return signBolt11(unsigned, randomBytes(32).toString("hex")).paymentRequest!;
  };

  it("gives the amount in whole sats (msat rounded up) and the expiry", () => {
    expect(readInvoice(invoice({ satoshis: 10, timestamp: 1_700_000_000, expire: 600 }))).toEqual({ ok: true, amountSats: 10, expiresAtMs: 1_700_000_600_000 });
    expect(readInvoice(invoice({ millisatoshis: "10500", timestamp: 1_700_000_000, expire: 60 }))).toMatchObject({ amountSats: 11 });
    // No expire_time: BOLT11's default of 3600 s.
    expect(readInvoice(invoice({ satoshis: 1, timestamp: 1_700_000_000 }))).toMatchObject({ expiresAtMs: 1_700_003_600_000 });
    expect(readInvoice(invoice({ timestamp: 1_700_000_000, expire: 60 }))).toMatchObject({ ok: true, amountSats: null });
  });

  it("says why a string is not an invoice", () => {
    const result = readInvoice("lnbc1notaninvoice");
    expect(result.ok).toBe(false);
  });
});

describe("the result mail", () => {
  const base = {
    slug: "acme",
    gatewayUrl: "https://g.example",
    statusUrl: "https://hub.example/api/external-listings/acme/status",
    summary: "Rejected: 1 problem",
  };

  it("keeps the submitter's text out of other header lines and escapes it in HTML", () => {
    const mail = listingReviewMail({ ...base, name: 'Acme\r\nBcc: victim@example.com <b>"x"</b>', status: "rejected", findings: [] });
    expect(mail.subject).toBe('Your L402 Hub listing "Acme Bcc: victim@example.com <b>"x"</b>" (acme) was not approved');
    expect(mail.html).not.toContain("<b>");
    expect(mail.html).toContain("&#60;b&#62;");
    expect(mail.url).toBe(base.statusUrl);
  });

  it("lists failures first, then what was not checked, then what passed", () => {
    const mail = listingReviewMail({
      ...base,
      name: "Acme",
      status: "rejected",
      findings: [
        { check: "content", endpoint: null, outcome: "pass", message: "fine" },
        { check: "payment", endpoint: "GET /a", outcome: "skip", message: "no wallet" },
        { check: "invoice", endpoint: "GET /a", outcome: "fail", message: "wrong amount" },
      ],
    });
    expect(mail.text.split("\n").filter((l) => l.startsWith("- "))).toEqual([
      "- [FAIL] GET /a · invoice: wrong amount",
      "- [not checked] GET /a · payment: no wallet",
      "- [ok] content: fine",
    ]);
  });
});
