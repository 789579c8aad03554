// POST /api/dev/lightning/pay: the dev wallet's pay API.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/dev/lightning/pay/route.ts";
import { DevLightningNode } from "@/lib/lightning/index.ts";
import { registerServerContext } from "@/lib/server-context.ts";
import { call, useApiContext } from "./helpers.ts";

const api = useApiContext();
const pay = (body: unknown) => call(POST, { method: "POST", path: "/dev/lightning/pay", body });
const invoice = (amountSats = 21, expirySeconds = 600) => api.server().devNode!.createInvoice({ amountSats, description: "test", expirySeconds });

describe("POST /api/dev/lightning/pay", () => {
  it("pays a dev-node invoice and returns the preimage", async () => {
    const { paymentRequest, paymentHash } = await invoice();
    const res = await pay({ invoice: paymentRequest });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ preimage: expect.stringMatching(/^[0-9a-f]{64}$/), paymentHash, amountSats: 21 });
    expect(createHash("sha256").update(Buffer.from(res.body.preimage, "hex")).digest("hex")).toBe(paymentHash);
  });

  it("maps refusals to 400/404/409 with the dev code in details.reason", async () => {
    const { paymentRequest } = await invoice();
    await pay({ invoice: paymentRequest });
    const again = await pay({ invoice: paymentRequest });
    expect(again).toMatchObject({ status: 409, body: { error: { code: "conflict", details: { reason: "already_paid" } } } });

    const garbage = await pay({ invoice: "lnbc1notaninvoice" });
    expect(garbage).toMatchObject({ status: 400, body: { error: { code: "bad_request", details: { reason: "invalid_invoice" } } } });

    const stranger = new DevLightningNode({ prisma: api.test().db.prisma, appSecret: "another-app-secret-0123456789abcdef0123" });
    const foreign = await stranger.createInvoice({ amountSats: 5, description: "x", expirySeconds: 600 });
    expect((await pay({ invoice: foreign.paymentRequest })).body.error.details.reason).toBe("unknown_invoice");
    expect((await pay({ invoice: foreign.paymentRequest })).status).toBe(404);

    const past = new DevLightningNode({
      prisma: api.test().db.prisma,
      appSecret: api.test().config.appSecret,
      now: () => new Date(Date.now() - 3_600_000),
    });
    const stale = await past.createInvoice({ amountSats: 5, description: "old", expirySeconds: 60 });
    const expired = await pay({ invoice: stale.paymentRequest });
    expect(expired).toMatchObject({ status: 410, body: { error: { details: { reason: "expired" } } } });
  });

  it("validates the body and is 404 when the dev node is off", async () => {
    expect((await pay({})).body.error.details.fields[0].field).toBe("invoice");
    const server = api.server();
    registerServerContext({ ...server, devNode: null });
    try {
      const { paymentRequest } = await invoice();
      const res = await pay({ invoice: paymentRequest });
      expect(res.status).toBe(404);
    } finally {
      registerServerContext(server);
    }
  });
});
