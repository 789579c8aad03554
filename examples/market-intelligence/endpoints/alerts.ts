// GET /v1/alerts/stream (SSE, time_pass): the alert bus as a stream. A `hello` event names the
// source and the event names; then one event per alert, named by its type (liquidation_cascade,
// funding_extreme, whale_transfer, wall_appeared, verdict), and a keep-alive comment every 15 s.
import { z } from "zod";
import { streamEndpoint } from "../endpoint.ts";
import { ALERT_TYPES, alertSchema } from "./alert-bus.ts";
import { iso, type CoreDeps } from "./common.ts";
import { KEEPALIVE_SECONDS, streamHelloSchema } from "./derivatives.ts";

const alertStream = streamEndpoint({
  path: "/v1/alerts/stream",
  price: 800,
  passMinutes: 1_440,
  summary: "Market alerts (SSE)",
  description:
    "An SSE stream of market alerts: `liquidation_cascade` (one side liquidated for ≥ $2M within 60 s), `funding_extreme` (funding entering |rate| ≥ 0.05 % per 8 h), `whale_transfer` (≥ 1,000 BTC), `wall_appeared` (a newly confirmed order-book wall ≥ $5M) and `verdict` (a transition of the verdict's state, bias or risk). First a `hello` event naming the source; a `: keep-alive` comment every 15 s. Paid as a 24-hour time_pass.",
  params: z.strictObject({}),
  events: { hello: streamHelloSchema, ...Object.fromEntries(ALERT_TYPES.map((type) => [type, alertSchema])) },
  example: {},
  open: (deps: CoreDeps, _params, sink) => {
    sink.event("hello", {
      stream: deps.source.kind,
      endpoint: "/v1/alerts/stream",
      keepalive_seconds: KEEPALIVE_SECONDS,
      events: [...ALERT_TYPES],
      filters: {},
      connected_at: iso(deps.source.now()),
    });
    return deps.alerts.subscribe((alert) => sink.event(alert.type, alert, alert.id));
  },
});

export const alertsEndpoints = [alertStream];
