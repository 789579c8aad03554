// Fuzz targets: bolt11 amount reading (the SDK's, before it pays, and the server's check of what a
// wallet returned), SSE framing of origin streams, and JSON request bodies of the platform API.
import bolt11 from "bolt11";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { z } from "zod";
import { eventTerminator, keepAliveFrame, paymentRequiredFrame, SseFrameTracker } from "@/lib/gateway/sse-frames.ts";
import { FakeLightningNode } from "@/tests/fakes/lightning/fake-invoices.ts";
import { WalletError } from "@/lib/lightning/types.ts";
import { decodeWalletInvoice } from "@/lib/lightning/wallet-response.ts";
import { decodeBolt11Amount } from "@l402-hub/sdk/client";
import { withErrors } from "@/lib/api/handler.ts";
import { useApiContext } from "@/tests/api/helpers.ts";
import { chunked, parseSse, referenceSseState } from "@/tests/helpers/sse-reference.ts";
import { fuzzTarget, mutationsOf, textMutationsOf, tokenSoup } from "./harness.ts";

const node = new FakeLightningNode();
const invoices = [1_000n, 21_000n, 1_500n, 123_456_789n, 100_000_000_000n].map(
  (amountMsat) => node.issue({ amountMsat, description: "fuzz", expirySeconds: 600 }).paymentRequest,
);
const hrpTokens = ["ln", "bc", "tb", "tbs", "bcrt", "sb", "1", "0", "9", "m", "u", "n", "p", "lightning:", "LN", " ", "99999999999999999999"];

describe("bolt11 amounts", () => {
  fuzzTarget(
    "decodeBolt11Amount against the bolt11 package",
    fc.oneof(textMutationsOf(invoices, hrpTokens), tokenSoup([...hrpTokens, invoices[0].slice(10, 40)])),
    (text) => {
      let ours: ReturnType<typeof decodeBolt11Amount> | null = null;
      try {
        ours = decodeBolt11Amount(text);
      } catch (err) {
        expect(err).toBeInstanceOf(TypeError);
      }
      let theirs: ReturnType<typeof bolt11.decode> | null = null;
      try {
        theirs = bolt11.decode(
          text
            .trim()
            .toLowerCase()
            .replace(/^lightning:/, ""),
        );
      } catch {
        // Refused by the reference: nothing to compare.
      }
      if (ours && theirs) expect(ours.amountMsat).toBe(theirs.millisatoshis ? BigInt(theirs.millisatoshis) : null);
      if (ours?.amountSats != null) expect(Number.isSafeInteger(ours.amountSats) && ours.amountSats >= 0).toBe(true);
    },
  );

  fuzzTarget("decodeWalletInvoice fails only with WalletError", textMutationsOf(invoices, hrpTokens), (text) => {
    try {
      const decoded = decodeWalletInvoice("fuzz", text);
      expect(decoded.paymentHash).toMatch(/^[0-9a-f]{64}$/);
    } catch (err) {
      expect(err).toBeInstanceOf(WalletError);
    }
  });
});

const encoder = new TextEncoder();
const sseSamples = ['data: {"price":1}\n\n', "event: tick\ndata: a\ndata: b\n\n", ": comment\n\nid: 7\r\ndata: x\r\n\r\n", "retry: 1000\n\n"];
const sseTokens = ["data:", "data: x", "event: tick", ":", ": note", "\n", "\r\n", "\n\n", "id: 7", " ", "é", "\u0000"];

describe("SSE framing", () => {
  fuzzTarget(
    "SseFrameTracker against the byte-by-byte reading",
    fc.tuple(
      mutationsOf(
        sseSamples.map((s) => encoder.encode(s)),
        sseTokens,
      ),
      fc.array(fc.nat(), { maxLength: 12 }),
    ),
    ([bytes, cuts]) => {
      const tracker = new SseFrameTracker();
      for (const chunk of chunked(bytes, cuts)) tracker.feed(chunk);
      expect({ atLineStart: tracker.atLineStart, atBoundary: tracker.atBoundary, sawContent: tracker.sawContent }).toEqual(referenceSseState(bytes));
    },
  );

  // Bare CR line endings are documented as not recognised (sse-frames.ts); inputs keep CR only in CRLF.
  const withoutBareCr = textMutationsOf(sseSamples, sseTokens).map((text) => text.replace(/\r(?!\n)/g, ""));

  fuzzTarget(
    "inserted keep-alives and the payment_required frame never change the origin's events",
    fc.tuple(withoutBareCr, fc.array(fc.nat(), { maxLength: 8 })),
    ([text, cuts]) => {
      const bytes = encoder.encode(text);
      const tracker = new SseFrameTracker();
      // The gateway relays bytes: what it inserts goes between chunks, which may split a character.
      const relayedBytes: Uint8Array[] = [];
      for (const chunk of chunked(bytes, cuts)) {
        const frame = keepAliveFrame(tracker);
        if (frame) relayedBytes.push(encoder.encode(frame));
        tracker.feed(chunk);
        relayedBytes.push(chunk);
      }
      relayedBytes.push(encoder.encode(eventTerminator(tracker) + paymentRequiredFrame("time_pass_expired")));
      const ended = Buffer.concat(relayedBytes).toString("utf8");
      const origin = parseSse(text + eventTerminator(tracker)).events;
      const relayed = parseSse(ended).events;
      expect(relayed.slice(0, -1)).toEqual(origin);
      expect(relayed.at(-1)).toMatchObject({ event: "payment_required", data: '{"reason":"time_pass_expired"}' });
    },
  );
});

describe("JSON request bodies", () => {
  useApiContext();
  const schema = z.object({ name: z.string().max(200), tags: z.array(z.string()).max(10).optional() }).strict();
  const route = withErrors(async ({ body }) => Response.json({ ok: true, name: body.name }), { body: schema });
  const jsonTokens = [
    "{",
    "}",
    "[",
    "]",
    '"name"',
    '"tags"',
    ":",
    ",",
    '"x"',
    "1e999",
    "-0",
    "null",
    "true",
    '"__proto__"',
    '"\\u0000"',
    '"\\ud800"',
    "é",
    "\u0000",
    " ",
  ];
  const bodies = fc.oneof(
    textMutationsOf(['{"name":"acme"}', '{"name":"a","tags":["x","y"]}', "{}", "[]"], jsonTokens),
    tokenSoup(jsonTokens),
    fc.json(),
    fc.integer({ min: 1, max: 2000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
  );

  fuzzTarget("parseJsonBody answers 200, 400 or 422, never 500", bodies, async (body) => {
    const res = await route(new Request("http://127.0.0.1:3000/api/fuzz", { method: "POST", headers: { "content-type": "application/json" }, body }), {
      params: Promise.resolve({}),
    });
    expect([200, 400, 413, 422]).toContain(res.status);
    const answer = (await res.json()) as { ok?: boolean; error?: { code: string; message: string } };
    if (res.status !== 200) expect(answer.error?.message.length).toBeGreaterThan(0);
  });
});
