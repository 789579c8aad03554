// The example APIs the hub ships (examples/, spec 2): which tenant each becomes, the origin that
// serves it and where its OpenAPI document is. `npm start` starts each origin as its own process and
// seeds the tenant from that document (launch-hosted-examples.ts); each also runs alone by its npm script.

export interface HostedExample {
  slug: string;
  name: string;
  description: string;
  tags: string[];
  /** The origin's entry file, relative to the repository root. */
  entry: string;
  /** Where the running origin serves its OpenAPI document (unsigned, like any public API description). */
  openApiPath: string;
  /** How long a first start may take (building a road graph, backfilling history) before it counts as failed. */
  startTimeoutMs: number;
  /** Variables of the hub's own environment handed to the origin (its documented settings); `PREFIX_*` names a prefix. */
  passEnv?: string[];
}

export const hostedExamples: readonly HostedExample[] = [
  {
    slug: "routes",
    name: "Route Planning API",
    description:
      "Directions, travel-time matrices, turn-by-turn navigation, tour and fleet optimization, reachable areas and stop clustering, " +
      "computed on the real OpenStreetMap road network of central Gothenburg. Map data © OpenStreetMap contributors (ODbL).",
    tags: ["routing", "maps", "logistics", "geo"],
    entry: "examples/route-planning/server.ts",
    openApiPath: "/origin/v1/routes/openapi.json",
    startTimeoutMs: 240_000,
  },
  {
    slug: "market",
    name: "Market Intelligence API",
    description:
      "Bitcoin market data and derived signals: spot across five venues, derivatives and liquidations, on-chain, macro, sentiment and events, " +
      "plus live SSE streams of liquidations and alerts. The data is SIMULATED (a seeded, coherent market) unless the hub runs it with MARKET_SOURCE=live; " +
      "every answer's meta.source says which.",
    tags: ["bitcoin", "market-data", "trading", "derivatives", "on-chain", "streaming"],
    entry: "examples/market-intelligence/server.ts",
    openApiPath: "/v1/openapi.json",
    startTimeoutMs: 120_000,
    // MARKET_SOURCE, MARKET_SEED, MARKET_DATABASE_URL and the live source's MARKET_LIVE_*_URL.
    passEnv: ["MARKET_*"],
  },
];

/**
 * The owner the hub gives an example's workspace (nobody can sign in as this address): how the
 * launcher and the API page's free preview (lib/previews) tell the hub's own tenant from a stranger's.
 */
export function exampleOwnerEmail(slug: string): string {
  return `${slug}@localhost`;
}
