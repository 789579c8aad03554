// Every endpoint group of the market-intelligence API, in the order the OpenAPI document lists them.
import type { MarketEndpoint } from "../endpoint.ts";
import { alertsEndpoints } from "./alerts.ts";
import type { CoreDeps } from "./common.ts";
import { riskEndpoints } from "./risk.ts";
import { technicalEndpoints } from "./technical.ts";
import { verdictEndpoints, type VerdictDeps } from "./verdict.ts";
import { derivativesEndpoints } from "./derivatives.ts";
import { intelligenceEndpoints } from "./intelligence.ts";
import { macroEndpoints } from "./macro.ts";
import { marketEndpoints } from "./market.ts";
import { networkEndpoints, onchainEndpoints } from "./onchain.ts";
import { ecosystemEndpoints, eventsEndpoints, sentimentEndpoints } from "./sentiment.ts";
import { historyEndpoints, type HistoryDeps } from "./history.ts";

type Deps = CoreDeps & VerdictDeps & HistoryDeps;

export const endpointGroups: Record<string, MarketEndpoint<Deps>[]> = {
  market: [...marketEndpoints, ...intelligenceEndpoints] as MarketEndpoint<CoreDeps>[],
  derivatives: derivativesEndpoints as MarketEndpoint<CoreDeps>[],
  onchain: onchainEndpoints as MarketEndpoint<CoreDeps>[],
  network: networkEndpoints as MarketEndpoint<CoreDeps>[],
  macro: macroEndpoints as MarketEndpoint<CoreDeps>[],
  sentiment: sentimentEndpoints as MarketEndpoint<CoreDeps>[],
  events: eventsEndpoints as MarketEndpoint<CoreDeps>[],
  ecosystem: ecosystemEndpoints as MarketEndpoint<CoreDeps>[],
  alerts: alertsEndpoints as MarketEndpoint<CoreDeps>[],
  technical: technicalEndpoints as MarketEndpoint<Deps>[],
  risk: riskEndpoints as MarketEndpoint<Deps>[],
  verdict: verdictEndpoints as MarketEndpoint<Deps>[],
  history: historyEndpoints as MarketEndpoint<Deps>[],
};

export const endpoints: MarketEndpoint<Deps>[] = Object.values(endpointGroups).flat();
