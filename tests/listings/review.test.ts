// The automated review end to end (issue 22 item 7): a real L402 gateway (ours, in front of a real
// origin, reached over HTTPS through a TLS front on loopback whose self-signed certificate the
// review's dispatcher is told to trust), a listing submitted through the real route, the review
// run as the worker runs it (claim, review, record, mail), the dev node paying within the budget.
// Approved from discovery; rejected for no 402, a non-L402 402, a price mismatch, an expired
// invoice, an empty paid answer and a private address (DNS rebinding to loopback); the e-mail in
// the dev mailbox; two racing runs review a listing once; the worker's own job wiring.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { encode as encodeBolt11, sign as signBolt11 } from "bolt11";
import { POST } from "@/app/api/external-listings/route.ts";
import { GET as STATUS } from "@/app/api/external-listings/[slug]/status/route.ts";
import { platformJobs } from "@/lib/jobs/schedule.ts";
import { listingReviewDispatcher } from "@/lib/listings/review-dependencies.ts";
import { claimDueListings, runListingReviews } from "@/lib/listings/run-listing-reviews.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { buildServerContext, registerServerContext } from "@/lib/server-context.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call } from "@/tests/api/helpers.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";
import { selfSignedCertificate } from "@/tests/webhooks/https-receiver.ts";
import { startHttpsFront, type HttpsFront } from "./https-front.ts";

const t = useGatewayTest({
  // The review may reach loopback here only because the allow-list says so (as webhooks' tests do).
  env: { WEBHOOK_ALLOWED_TARGETS: "127.0.0.1/32", LISTING_REVIEW_BUDGET_SATS: "100", LISTING_DENY_LIST: "casino" },
  routes: (origin) => {
    origin.route("/v1/forecast", json(200, { city: "Gothenburg", temperatureC: 7 }));
    origin.route("/v1/ping", json(200, { ok: true }));
    origin.route("/v1/empty", (_req, res) => void res.writeHead(200, { "content-type": "text/plain" }).end(""));
    origin.route("/v1/ticks", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(": connected\n\n");
      res.write('event: tick\ndata: {"n":1}\n\n');
      // Stays open, as a live stream does, until the reader goes away.
    });
  },
});

const log = createLogger("silent");
let front: HttpsFront;
let dispatcher: ReturnType<typeof listingReviewDispatcher>;

beforeAll(async () => {
  registerServerContext(buildServerContext(t.ctx));
  front = await startHttpsFront(t.urls[0]);
  // The dispatcher the worker uses, plus the tests' CA (production trusts NODE_EXTRA_CA_CERTS).
  dispatcher = listingReviewDispatcher(t.ctx.config, { ca: selfSignedCertificate().cert });
});

afterAll(async () => {
  await dispatcher?.close();
  await front?.close();
});

type Gateways = { good: string; odd: string };
let slugs: Gateways;

beforeEach(async () => {
  front.script(null);
  front.seen.length = 0;
  const { prisma } = t.ctx.db;
  const secret = t.ctx.config.appSecret;
  const good = await tenantFactory(prisma, secret, { originUrl: t.origin.url, name: "Weather Co" });
  await devWalletFactory(prisma, secret, good.tenantId, t.devNode.nodePubkey);
  await endpointFactory(prisma, good.tenantId, { path: "/v1/forecast", title: "Forecast", pricingModel: "per_request", priceSats: 10 });
  await endpointFactory(prisma, good.tenantId, { path: "/v1/ping", title: "Ping" });
  await endpointFactory(prisma, good.tenantId, { path: "/v1/ticks", title: "Ticks", pricingModel: "per_request", priceSats: 5, streaming: true });
  const odd = await tenantFactory(prisma, secret, { originUrl: t.origin.url, name: "Odd Co" });
  await devWalletFactory(prisma, secret, odd.tenantId, t.devNode.nodePubkey);
  await endpointFactory(prisma, odd.tenantId, { path: "/v1/forecast", title: "Forecast", pricingModel: "per_request", priceSats: 10 });
  await endpointFactory(prisma, odd.tenantId, { path: "/v1/empty", title: "Nothing", pricingModel: "per_request", priceSats: 3 });
  await endpointFactory(prisma, odd.tenantId, { path: "/v1/ping", title: "Ping" });
  slugs = { good: good.slug, odd: odd.slug };
});

let nextIp = 1;
async function submit(body: Record<string, unknown>) {
  const res = await call(POST, { method: "POST", path: "/external-listings", body, headers: { "x-hub-client-ip": `192.0.2.${nextIp++}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { slug: string };
}

const listing = (slug: string, gatewayUrl: string, endpoints?: unknown[]) => ({
  slug,
  name: "Weather Co forecasts",
  description: "Hourly forecasts for Gothenburg, paid per call over Lightning.",
  tags: ["weather"],
  gatewayUrl,
  contactEmail: "ops@weather.example",
  ...(endpoints ? { endpoints } : {}),
});

function review(options: { payer?: boolean; budgetSats?: number } = {}) {
  return runListingReviews({
    prisma: t.ctx.db.prisma,
    config: { ...t.ctx.config, listingReviewBudgetSats: options.budgetSats ?? t.ctx.config.listingReviewBudgetSats },
    dispatcher,
    payer: options.payer === false ? null : { pay: async (invoice) => ({ preimage: (await t.devNode.pay(invoice)).preimage }) },
    log,
    // Generous on a loaded test machine: these tests judge answers, not speed.
    requestTimeoutMs: 30_000,
  });
}

async function status(slug: string) {
  const res = await call(STATUS, { method: "GET", path: `/external-listings/${slug}/status`, params: { slug } });
  expect(res.status).toBe(200);
  return res.body as {
    status: string;
    summary?: string;
    findings?: { check: string; endpoint: string | null; outcome: string; ok: boolean; message: string }[];
  };
}

/** The failed findings, without their `ok` flag once it is checked to agree (false). */
const failures = (view: Awaited<ReturnType<typeof status>>) => {
  for (const f of view.findings ?? []) expect(f.ok).toBe(f.outcome !== "fail");
  return (view.findings ?? []).filter((f) => f.outcome === "fail").map(({ ok: _ok, ...f }) => f);
};

/** A real BOLT11 invoice for `sats`, signed by a random node, issued two hours ago with a 10-minute expiry. */
function expiredInvoice(sats: number): string {
  const unsigned = encodeBolt11(
    {
      network: { bech32: "bcrt", pubKeyHash: 111, scriptHash: 196, validWitnessVersions: [0, 1] },
      satoshis: sats,
      timestamp: Math.floor(Date.now() / 1000) - 7200,
      tags: [
        { tagName: "payment_hash", data: createHash("sha256").update(randomBytes(32)).digest("hex") },
        { tagName: "payment_secret", data: randomBytes(32).toString("hex") },
        { tagName: "description", data: "forecast" },
        { tagName: "expire_time", data: 600 },
        { tagName: "feature_bits", data: { word_length: 4, var_onion_optin: { required: true }, payment_secret: { required: true } } },
      ],
    },
    false,
  );
  return signBolt11(unsigned, randomBytes(32).toString("hex")).paymentRequest!;
}

describe("an L402 gateway that does everything right", () => {
  it("is approved from its discovery file, paid within the budget, and told so by e-mail", async () => {
    const gatewayUrl = front.url(`/gw/${slugs.good}`);
    await submit(listing("weather-co", gatewayUrl));
    expect((await status("weather-co")).status).toBe("pending");

    expect(await review()).toEqual({ decided: 1, mailed: 1 });

    const view = await status("weather-co");
    expect(failures(view)).toEqual([]);
    expect(view.status).toBe("approved");
    expect(view.summary).toBe("Approved: 3 endpoints checked, 2 L402 challenges verified, 2 paid answers verified.");
    const byCheck = (check: string) => view.findings!.filter((f) => f.check === check).map((f) => f.endpoint);
    expect(byCheck("discovery")).toEqual([null]);
    expect(byCheck("invoice").sort()).toEqual(["GET /v1/forecast", "GET /v1/ticks"]);
    expect(byCheck("paid_response").sort()).toEqual(["GET /v1/forecast", "GET /v1/ticks"]);
    expect(byCheck("free_access")).toEqual(["GET /v1/ping"]);
    expect(view.findings!.find((f) => f.endpoint === "GET /v1/ticks" && f.check === "paid_response")!.message).toContain("sent an event");

    // The paid retries carried L402 proofs and reached the origin through the gateway.
    expect(
      front.seen
        .filter((r) => r.authorization?.startsWith("L402 "))
        .map((r) => r.path)
        .sort(),
    ).toEqual([`/gw/${slugs.good}/v1/forecast`, `/gw/${slugs.good}/v1/ticks`]);
    expect(t.origin.received.map((r) => r.url).sort()).toEqual(["/v1/forecast", "/v1/ping", "/v1/ticks"]);

    // The discovered endpoints are stored for the directory.
    const row = await t.ctx.db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "weather-co" } });
    expect(row.endpoints).toEqual(
      expect.arrayContaining([expect.objectContaining({ method: "GET", path: "/v1/forecast", pricingModel: "per_request", priceSats: 10, title: "Forecast" })]),
    );
    expect(row).toMatchObject({ reviewAttempts: 1, reviewClaim: null, reviewDueAt: null });
    expect(row.notifiedAt).not.toBeNull();

    const mails = await t.ctx.db.prisma.devMail.findMany();
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({
      to: "ops@weather.example",
      subject: 'Your L402 Hub listing "Weather Co forecasts" (weather-co) is approved',
      url: "http://127.0.0.1:3000/api/external-listings/weather-co/status",
    });
    expect(mails[0].text).toContain("has decided: approved");
    expect(mails[0].text).toContain(view.summary!);
    expect(mails[0].text).toContain("[ok] GET /v1/forecast · paid_response: paid 10 sats");
    expect(mails[0].text).toContain("Status: http://127.0.0.1:3000/api/external-listings/weather-co/status");

    // Nothing is due any more: another pass does nothing.
    expect(await review()).toEqual({ decided: 0, mailed: 0 });
  });

  it("also reads an OpenAPI document with x-l402-pricing when the discovery file is missing", async () => {
    front.script((req, res) => {
      if (!req.url?.endsWith("/.well-known/l402-gateway.json")) return false;
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"none"}');
      return true;
    });
    await submit(listing("weather-openapi", front.url(`/gw/${slugs.good}`)));
    await review();
    const view = await status("weather-openapi");
    expect(failures(view)).toEqual([]);
    expect(view.status).toBe("approved");
    expect(view.findings!.find((f) => f.check === "discovery")!.message).toContain("/.well-known/openapi.json");
  });

  it("checks challenges but skips paid answers when the platform wallet cannot pay, or the budget is spent", async () => {
    await submit(listing("no-payer", front.url(`/gw/${slugs.good}`)));
    await review({ payer: false });
    const view = await status("no-payer");
    expect(view.status).toBe("approved");
    expect(view.findings!.filter((f) => f.check === "payment").map((f) => f.outcome)).toEqual(["skip", "skip"]);
    expect(front.seen.some((r) => r.authorization)).toBe(false);

    // A 12-sat budget pays the 10-sat forecast (listed first) and leaves too little for the 5-sat stream.
    await submit(listing("small-budget", front.url(`/gw/${slugs.good}`)));
    await review({ budgetSats: 12 });
    const small = await status("small-budget");
    expect(small.status).toBe("approved");
    expect(small.findings!.filter((f) => f.check === "paid_response").map((f) => f.endpoint)).toEqual(["GET /v1/forecast"]);
    expect(small.findings!.find((f) => f.check === "payment")).toMatchObject({
      endpoint: "GET /v1/ticks",
      outcome: "skip",
      message: "the price (5 sats) exceeds what the review may still spend (2 of 12 sats), so the paid answer was not checked",
    });
  });
});

describe("rejections, each with a finding that names the problem", () => {
  it("no 402: an endpoint declared priced answers without payment", async () => {
    await submit(listing("no-402", front.url(`/gw/${slugs.good}`), [{ path: "/v1/ping", method: "GET", pricingModel: "per_request", priceSats: 10 }]));
    await review();
    const view = await status("no-402");
    expect(view.status).toBe("rejected");
    expect(failures(view)).toEqual([
      {
        check: "challenge",
        endpoint: "GET /v1/ping",
        outcome: "fail",
        message: "answered 200 without payment; a priced endpoint must answer 402 with an L402 challenge",
      },
    ]);
  });

  it("a 402 whose WWW-Authenticate is not L402", async () => {
    front.script((req, res) => {
      if (!req.url?.endsWith("/v1/forecast")) return false;
      res.writeHead(402, { "www-authenticate": 'Payment realm="api", method="card"', "content-type": "application/json" }).end('{"error":"pay"}');
      return true;
    });
    await submit(listing("not-l402", front.url(`/gw/${slugs.good}`), [{ path: "/v1/forecast", method: "GET", pricingModel: "per_request", priceSats: 10 }]));
    await review();
    const view = await status("not-l402");
    expect(view.status).toBe("rejected");
    expect(failures(view)).toEqual([
      {
        check: "challenge",
        endpoint: "GET /v1/forecast",
        outcome: "fail",
        message: '402 whose WWW-Authenticate is not an L402 or LSAT challenge (got "Payment realm="api", method="card"")',
      },
    ]);
  });

  it("the invoice asks another amount than the declared price", async () => {
    await submit(
      listing("price-mismatch", front.url(`/gw/${slugs.good}`), [{ path: "/v1/forecast", method: "GET", pricingModel: "per_request", priceSats: 20 }]),
    );
    await review();
    const view = await status("price-mismatch");
    expect(view.status).toBe("rejected");
    expect(failures(view).map((f) => f.message)).toEqual(["the invoice asks 10 sats but the declared price is 20 sats"]);
    expect(front.seen.some((r) => r.authorization)).toBe(false);
  });

  it("the invoice has already expired", async () => {
    const invoice = expiredInvoice(10);
    front.script((req, res) => {
      if (!req.url?.endsWith("/v1/forecast")) return false;
      res.writeHead(402, { "www-authenticate": `L402 macaroon="AgEEbHNhdAJCAAA=", invoice="${invoice}"`, "content-type": "application/json" }).end("{}");
      return true;
    });
    await submit(listing("expired", front.url(`/gw/${slugs.good}`), [{ path: "/v1/forecast", method: "GET", pricingModel: "per_request", priceSats: 10 }]));
    await review();
    const view = await status("expired");
    expect(view.status).toBe("rejected");
    const [finding] = failures(view);
    expect(finding).toMatchObject({ check: "invoice", endpoint: "GET /v1/forecast" });
    expect(finding.message).toMatch(/^the invoice expired at \d{4}-\d\d-\d\dT/);
  });

  it("the paid answer is empty", async () => {
    await submit(listing("empty-paid", front.url(`/gw/${slugs.odd}`)));
    await review();
    const view = await status("empty-paid");
    expect(view.status).toBe("rejected");
    expect(failures(view)).toEqual([{ check: "paid_response", endpoint: "GET /v1/empty", outcome: "fail", message: "paid 3 sats, then the body is empty" }]);
    // The other priced endpoint of that gateway passed all the way.
    expect(view.findings!.find((f) => f.endpoint === "GET /v1/forecast" && f.check === "paid_response")!.outcome).toBe("pass");
  });

  it("a gateway whose name resolves to a private address at review time (DNS rebinding)", async () => {
    // Submission checked the name against public answers; at review time it resolves to loopback,
    // which the connect-time check of the pinned dispatcher refuses (no allow-list for it here).
    const rebinding = listingReviewDispatcher(
      { webhookAllowedTargets: [] },
      { resolver: async () => [{ address: "127.0.0.1", family: 4 }], ca: selfSignedCertificate().cert },
    );
    try {
      await t.ctx.db.prisma.externalListing.create({
        data: { slug: "rebinder", name: "Rebinder", gatewayUrl: front.url(`/gw/${slugs.good}`, "rebind.test"), contactEmail: "x@rebind.example" },
      });
      await runListingReviews({ prisma: t.ctx.db.prisma, config: t.ctx.config, dispatcher: rebinding, payer: null, log });
    } finally {
      await rebinding.close();
    }
    const view = await status("rebinder");
    expect(view.status).toBe("rejected");
    const [finding] = failures(view);
    expect(finding).toMatchObject({ check: "address", endpoint: null });
    expect(finding.message).toContain("rebind.test resolves to 127.0.0.1, a loopback address");
    expect(front.seen).toEqual([]);
  });

  it("a gateway of free endpoints only is not an L402 gateway", async () => {
    await submit(listing("all-free", front.url(`/gw/${slugs.good}`), [{ path: "/v1/ping", method: "GET" }]));
    await review();
    const view = await status("all-free");
    expect(view.status).toBe("rejected");
    expect(failures(view).map((f) => f.message)).toEqual(["no priced endpoint: a listed gateway must ask for payment with L402 on at least one endpoint"]);
    expect(view.findings!.find((f) => f.check === "free_access")).toMatchObject({ outcome: "pass", endpoint: "GET /v1/ping" });
  });

  it("content policy: a denied term and a name that is a URL", async () => {
    await submit({ ...listing("casino-royale", front.url(`/gw/${slugs.good}`)), name: "https://casino.example" });
    await review();
    const view = await status("casino-royale");
    expect(view.status).toBe("rejected");
    const messages = failures(view).map((f) => f.message);
    expect(messages).toContain("name is or holds a URL; give the API's name (the gateway URL is listed separately)");
    expect(messages).toContain('name contains "casino", which the platform\'s content policy does not allow');
  });

  it("mails every finding of a rejection, failures first", async () => {
    await submit(
      listing("price-mismatch", front.url(`/gw/${slugs.good}`), [
        { path: "/v1/forecast", method: "GET", pricingModel: "per_request", priceSats: 20 },
        { path: "/v1/ping", method: "GET", pricingModel: "per_request", priceSats: 1 },
      ]),
    );
    await review();
    const [mail] = await t.ctx.db.prisma.devMail.findMany();
    expect(mail.subject).toBe('Your L402 Hub listing "Weather Co forecasts" (price-mismatch) was not approved');
    const lines = mail.text.split("\n").filter((l) => l.startsWith("- ["));
    expect(lines).toEqual([
      "- [FAIL] GET /v1/forecast · invoice: the invoice asks 10 sats but the declared price is 20 sats",
      "- [FAIL] GET /v1/ping · challenge: answered 200 without payment; a priced endpoint must answer 402 with an L402 challenge",
      "- [ok] content: name, description, tags and endpoint texts meet the content policy",
    ]);
    expect(mail.text).toContain("has decided: rejected");
  });
});

describe("exactly once", () => {
  it("two review runs racing one listing review it once and mail once", async () => {
    await submit(listing("raced", front.url(`/gw/${slugs.good}`)));
    const [a, b] = await Promise.all([review(), review()]);
    expect(a.decided + b.decided).toBe(1);
    expect(await t.ctx.db.prisma.devMail.count()).toBe(1);
    // One review's worth of unpaid calls: each endpoint once.
    const unpaid = front.seen.filter((r) => !r.authorization && r.path.includes("/v1/")).map((r) => r.path);
    expect(unpaid.sort()).toEqual([`/gw/${slugs.good}/v1/forecast`, `/gw/${slugs.good}/v1/ping`, `/gw/${slugs.good}/v1/ticks`]);
    const row = await t.ctx.db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "raced" } });
    expect(row.reviewAttempts).toBe(1);
  });

  it("a review lost with its worker is taken up again once its lease lapses", async () => {
    await submit(listing("lost", front.url(`/gw/${slugs.good}`)));
    const [claimed] = await claimDueListings(t.ctx.db.prisma, "worker-that-died", 1);
    expect(claimed.slug).toBe("lost");
    // Within the lease nobody else takes it.
    expect(await review()).toEqual({ decided: 0, mailed: 0 });
    // The lease lapses (as if its time had passed).
    await t.ctx.db.prisma.externalListing.update({
      where: { slug: "lost" },
      data: { reviewLockedUntil: new Date(Date.now() - 1000), reviewDueAt: new Date(Date.now() - 1000) },
    });
    expect(await review()).toEqual({ decided: 1, mailed: 1 });
    const row = await t.ctx.db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "lost" } });
    expect(row).toMatchObject({ status: "approved", reviewAttempts: 2, reviewClaim: null });
  });

  it("a result mail that could not be sent is sent later without a second review", async () => {
    await submit(listing("mail-later", front.url(`/gw/${slugs.good}`)));
    // No SMTP and no dev mailbox: the mail fails, the decision stands.
    const noMail = await runListingReviews({
      prisma: t.ctx.db.prisma,
      config: { ...t.ctx.config, smtpUrl: null, devMailbox: false },
      dispatcher,
      payer: null,
      log,
      requestTimeoutMs: 30_000,
    });
    expect(noMail).toEqual({ decided: 1, mailed: 0 });
    let row = await t.ctx.db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "mail-later" } });
    expect(row).toMatchObject({ status: "approved", notifiedAt: null, reviewClaim: null });
    expect(row.reviewDueAt!.getTime()).toBeGreaterThan(Date.now());
    const seenBefore = front.seen.length;

    // Its retry comes due; the mailbox works now.
    await t.ctx.db.prisma.externalListing.update({ where: { slug: "mail-later" }, data: { reviewDueAt: new Date(Date.now() - 1000) } });
    expect(await review()).toEqual({ decided: 0, mailed: 1 });
    expect(front.seen.length).toBe(seenBefore);
    row = await t.ctx.db.prisma.externalListing.findUniqueOrThrow({ where: { slug: "mail-later" } });
    expect(row).toMatchObject({ reviewAttempts: 1, reviewDueAt: null });
    expect(row.notifiedAt).not.toBeNull();
    const [mail] = await t.ctx.db.prisma.devMail.findMany();
    expect(mail.subject).toContain("is approved");
  });

  it("the worker's listing-reviews job reviews a fresh submission (an untrusted certificate is a finding)", async () => {
    // The job's own dispatcher trusts only the system store (+ NODE_EXTRA_CA_CERTS), not the tests' CA.
    await submit(listing("via-worker", front.url(`/gw/${slugs.good}`)));
    const jobs = platformJobs({ prisma: t.ctx.db.prisma, store: t.ctx.store, devNode: t.devNode, log, config: t.ctx.config });
    const job = jobs.find((j) => j.name === "listing-reviews")!;
    expect(job).toMatchObject({ singleton: false });
    try {
      await job.run();
    } finally {
      await Promise.all(jobs.map((j) => j.close?.()));
    }
    const view = await status("via-worker");
    expect(view.status).toBe("rejected");
    const [finding] = failures(view);
    expect(finding.check).toBe("reachability");
    expect(finding.message).toMatch(/certificate/i);
    expect(await t.ctx.db.prisma.devMail.count()).toBe(1);
  });
});
