// The pricing models are listed once on the platform side (lib/pricing/quote.ts: PRICING_MODELS,
// SESSION_MODELS). The SDK keeps its own list, part of its public contract (`PricingModelName`, the
// MCP tools' `x-l402-pricing` model, the session models its client recognises in a 402 body): this
// holds the SDK's lists equal to the platform's, by type and by behaviour.
import { describe, expect, expectTypeOf, it } from "vitest";
import { PRICING_MODELS, SESSION_MODELS, type PricingModel, type SessionModel } from "@/lib/pricing/quote.ts";
import { createL402Client, L402Error, type L402ClientEvent, type PricingModelName } from "@l402-hub/sdk/client";
import type { ToolPricing } from "@l402-hub/sdk/mcp";

// A BOLT 11 test vector's data part under a regtest 7-sat prefix: the client reads only its amount.
const INVOICE = "lnbcrt70n1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypq";
const MACAROON = "AgEEbHNhdAJCAAA=";

/** The model the client reports for a 402 whose body names `model`. */
async function modelSeenByClient(model: string): Promise<PricingModelName | null | undefined> {
  const events: L402ClientEvent[] = [];
  const client = createL402Client({
    budgetSats: 100,
    // Refuses to pay: the challenge event has been emitted by then.
    wallet: { name: "refuses", pay: async () => Promise.reject(new Error("not paying in this test")) },
    fetch: async () =>
      new Response(JSON.stringify({ amountSats: 7, model }), {
        status: 402,
        headers: { "content-type": "application/json", "www-authenticate": `L402 macaroon="${MACAROON}", invoice="${INVOICE}"` },
      }),
    onEvent: (event) => events.push(event),
  });
  await expect(client.fetch(`https://gateway.test/gw/models/v1/${model}`)).rejects.toBeInstanceOf(L402Error);
  const challenge = events.find((event) => event.type === "challenge");
  return challenge?.type === "challenge" ? challenge.model : undefined;
}

describe("pricing models: the SDK's list is the platform's", () => {
  it("has the same model names in its public types", () => {
    expectTypeOf<PricingModelName>().toEqualTypeOf<PricingModel>();
    expectTypeOf<ToolPricing["model"]>().toEqualTypeOf<PricingModel>();
    expectTypeOf<SessionModel>().toEqualTypeOf<Exclude<PricingModel, "per_request">>();
    expect(new Set(SESSION_MODELS)).toEqual(new Set(PRICING_MODELS.filter((model) => model !== "per_request")));
  });

  it("recognises exactly lib/pricing's session models in a 402 body", async () => {
    for (const model of PRICING_MODELS) {
      expect(await modelSeenByClient(model), model).toBe((SESSION_MODELS as readonly string[]).includes(model) ? model : null);
    }
    expect(await modelSeenByClient("per_byte")).toBeNull();
  });
});
