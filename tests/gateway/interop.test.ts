// Existing L402 clients pay our gateway without special casing: Alby's lightning-tools
// (fetchWithL402, parseL402) and the fixed regular expressions deployed clients use.
import { fetchWithL402, parseL402 } from "@getalby/lightning-tools/402/l402";
import { decodeInvoice } from "@getalby/lightning-tools/bolt11";
import { beforeAll, describe, expect, it } from "vitest";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

// The default rate limits, as a deployed gateway has them.
const t = useGatewayTest({
  gatewayOptions: { rateLimits: {} },
  resetEachTest: false,
  routes: (origin) => origin.route("/v1/quote", json(200, { quote: 42 })),
});
let base: string;

beforeAll(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/quote", pricingModel: "per_request", priceSats: 21 });
  base = `${t.urls[0]}/gw/${slug}`;
});

describe("interoperability", () => {
  it("Alby's fetchWithL402 pays the challenge and gets the origin's response", async () => {
    const paid: string[] = [];
    const wallet = {
      payInvoice: async ({ invoice }: { invoice: string }) => {
        paid.push(invoice);
        return { preimage: (await t.devNode.pay(invoice)).preimage };
      },
    };
    const res = await fetchWithL402(`${base}/v1/quote`, {}, { wallet });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ quote: 42 });
    expect(res.headers.get("x-hub-payment")).toBe("charged");
    expect(res.payment).toMatchObject({ paid: true, amountSat: 21 });
    expect(paid).toHaveLength(1);
  });

  it("the challenge parses with Alby's parser, its bolt11 decoder and the regexes deployed clients use", async () => {
    const res = await fetch(`${base}/v1/quote`);
    expect(res.status).toBe(402);
    const header = res.headers.get("www-authenticate")!; // fetch joins both lines with ", "
    const parsed = parseL402(header);
    const body = (await res.json()) as { paymentRequest: string; paymentHash: string };
    expect(parsed.invoice).toBe(body.paymentRequest);
    expect(Buffer.from(parsed.token, "base64").length).toBeGreaterThan(66);
    const decoded = decodeInvoice(parsed.invoice);
    expect(decoded?.satoshi).toBe(21);
    expect(decoded?.paymentHash).toBe(body.paymentHash);
    // Lightning Labs' style fixed pattern, case-insensitive scheme.
    const m = /(LSAT|L402)\s+macaroon="([^"]+)",\s*invoice="([^"]+)"/i.exec(header);
    expect(m?.[1]).toBe("L402");
    expect(m?.[3]).toBe(body.paymentRequest);
    // The identifier carries the payment hash at bytes 2..34 (version 0 first).
    const id = Buffer.from(m![2], "base64");
    expect(id.includes(Buffer.from(body.paymentHash, "hex"))).toBe(true);
  });
});
