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
];
