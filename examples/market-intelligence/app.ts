// The market-intelligence API assembled: the source, the alert bus and its producer, the positioning
// refresher, the endpoints, the OpenAPI document (with example answers computed at start) and the
// origin that routes them. server.ts serves it; tests build it on an injected clock.
import { VerdictEngine } from "./analytics/verdict/engine.ts";
import { transitionAlert } from "./analytics/verdict/view.ts";
import { responseMeta, type MarketEndpoint } from "./endpoint.ts";
import { AlertBus, AlertProducer } from "./endpoints/alert-bus.ts";
import type { CoreDeps } from "./endpoints/common.ts";
import type { VerdictDeps } from "./endpoints/verdict.ts";
import type { HistoryDeps } from "./endpoints/history.ts";
import type { HistoryStore } from "./history/store.ts";
import { endpoints as allEndpoints } from "./endpoints/index.ts";
import { PositioningService } from "./endpoints/positioning.ts";
import type { MarketSource } from "./model/types.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { createMarketOrigin } from "./origin.ts";

/** Lists in the document's example answers are cut to this many items (the hub keeps examples under 64 KB). */
const EXAMPLE_LIST_ITEMS = 5;

function shortenExample(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, EXAMPLE_LIST_ITEMS).map(shortenExample);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenExample(v)]));
  return value;
}

/** What the handlers of every group read: one object satisfies each group's own deps structurally. */
export type MarketDeps = CoreDeps & VerdictDeps & HistoryDeps;

export interface MarketAppOptions {
  source: MarketSource;
  /** The recorded history the /v1/history/* endpoints read (history/open-market-history.ts). */
  history: HistoryStore;
  endpoints?: MarketEndpoint<MarketDeps>[];
  /** Timers for the positioning refresh and the alert checks (default true; tests drive them by hand). */
  background?: boolean;
}

export async function createMarketApp(options: MarketAppOptions) {
  const { source } = options;
  const endpoints = options.endpoints ?? allEndpoints;
  const alerts = new AlertBus();
  const producer = new AlertProducer(source, alerts, { autoCheck: options.background !== false });
  const positioning = new PositioningService(source, { background: options.background !== false });
  const verdict = new VerdictEngine({ source });
  // A transition of the verdict is an alert: the alerts stream's `verdict` event.
  const unfollowVerdict = verdict.onTransition((transition, current) => alerts.publish(transitionAlert(transition, current)));
  const stopVerdict = options.background !== false ? verdict.start() : () => undefined;
  const deps: MarketDeps = { source, alerts, positioning, verdict, store: options.history };
  const examples: Record<string, unknown> = {};
  for (const endpoint of endpoints) {
    if (endpoint.kind !== "json") continue;
    const answer = await endpoint.handle(deps, endpoint.params.parse(endpoint.example), { headers: {}, probe: false });
    // An example that cannot be answered yet (history still empty) is left out, never shown as an error.
    if ((answer.status ?? 200) !== 200) continue;
    examples[endpoint.path] = shortenExample({ ...(answer.body as object), meta: responseMeta(source) });
  }
  const openapi = buildOpenApiDocument({ endpoints: endpoints as MarketEndpoint<unknown>[], examples, sourceKind: source.kind });
  const origin = createMarketOrigin({ deps, endpoints, openapi: () => openapi });
  return {
    deps,
    endpoints,
    origin,
    openapi,
    producer,
    verdict,
    async close() {
      producer.close();
      positioning.close();
      stopVerdict();
      unfollowVerdict();
      await source.close();
    },
  };
}
