// Every endpoint group of the market-intelligence API, in the order the OpenAPI document lists them.
// The technical, risk, verdict and history groups join this list at merge (one line each).
import type { MarketEndpoint } from "../endpoint.ts";
import { alertsEndpoints } from "./alerts.ts";
import type { CoreDeps } from "./common.ts";
import { derivativesEndpoints } from "./derivatives.ts";
import { intelligenceEndpoints } from "./intelligence.ts";
import { macroEndpoints } from "./macro.ts";
import { marketEndpoints } from "./market.ts";
import { networkEndpoints, onchainEndpoints } from "./onchain.ts";
import { ecosystemEndpoints, eventsEndpoints, sentimentEndpoints } from "./sentiment.ts";

export const endpointGroups: Record<string, MarketEndpoint<CoreDeps>[]> = {
  market: [...marketEndpoints, ...intelligenceEndpoints] as MarketEndpoint<CoreDeps>[],
  derivatives: derivativesEndpoints as MarketEndpoint<CoreDeps>[],
  onchain: onchainEndpoints as MarketEndpoint<CoreDeps>[],
  network: networkEndpoints as MarketEndpoint<CoreDeps>[],
  macro: macroEndpoints as MarketEndpoint<CoreDeps>[],
  sentiment: sentimentEndpoints as MarketEndpoint<CoreDeps>[],
  events: eventsEndpoints as MarketEndpoint<CoreDeps>[],
  ecosystem: ecosystemEndpoints as MarketEndpoint<CoreDeps>[],
  alerts: alertsEndpoints as MarketEndpoint<CoreDeps>[],
};

export const endpoints: MarketEndpoint<CoreDeps>[] = Object.values(endpointGroups).flat();
