// Measures /cluster in-process: every strategy on 1,000 straight-line stops (10 and 50 vehicles,
// with and without balance_workload), and the road-aware maximum of 50 stops on the real engine.
// `npx tsx bench/route-cluster.ts` (docs/route-planning-cluster.md, "Measured").
import { runCluster, clusterRequestSchema } from "@/examples/route-planning/operations/cluster.ts";
import { testContext } from "@/examples/route-planning/operations/test-engine.ts";
import { STRATEGIES } from "@/examples/route-planning/cluster/index.ts";
import { seededRandom as random } from "@/examples/shared/seeded-random.ts";

/** Stops across the covered area with demand, service times and (for half of them) a two-hour window. */
function stops(count: number, seed: number, box = { lat: [57.66, 57.75], lng: [11.88, 12.08] }) {
  const rnd = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const hour = 8 + Math.floor(rnd() * 8);
    return {
      id: `s${i}`,
      lat: box.lat[0] + rnd() * (box.lat[1] - box.lat[0]),
      lng: box.lng[0] + rnd() * (box.lng[1] - box.lng[0]),
      demand: { items: 1 + Math.floor(rnd() * 5), weight_kg: Math.round(rnd() * 400) / 10 },
      service_seconds: 60 + Math.floor(rnd() * 600),
      ...(i % 2
        ? {
            time_window: {
              start: `2026-11-26T${String(hour).padStart(2, "0")}:00:00+01:00`,
              end: `2026-11-26T${String(hour + 2).padStart(2, "0")}:00:00+01:00`,
            },
          }
        : {}),
    };
  });
}

const ctx = testContext();
const depot = { lat: 57.7146, lng: 11.9866 };

function measure(label: string, body: unknown) {
  const input = clusterRequestSchema.parse(body);
  const started = performance.now();
  const answer = runCluster(input, ctx);
  const millis = performance.now() - started;
  const spread = answer.summary.max_workload_seconds - answer.summary.min_workload_seconds;
  console.log(
    `${label.padEnd(44)} ${millis.toFixed(0).padStart(5)} ms  ${answer.summary.clusters} groups, ${answer.summary.unassigned_stops} unassigned, workload spread ${(spread / 60).toFixed(0)} min`,
  );
}

for (const vehicleCount of [10, 50]) {
  const many = stops(1000, 1);
  const vehicles = Array.from({ length: vehicleCount }, (_, i) => ({
    id: `v${i}`,
    capacity: { items: Math.ceil(3300 / vehicleCount), weight_kg: Math.ceil(22_000 / vehicleCount) },
  }));
  for (const strategy of STRATEGIES) {
    for (const balance_workload of [false, true]) {
      measure(`1000 stops, ${vehicleCount} vehicles, ${strategy}${balance_workload ? " +balance" : ""}`, {
        stops: many,
        vehicles,
        strategy,
        balance_workload,
        depot,
      });
    }
  }
}
const fifty = stops(50, 2, { lat: [57.68, 57.73], lng: [11.9, 12.03] });
for (const strategy of ["balanced", "fairness", "zone_based"] as const) {
  measure(`50 stops road-aware, 5 clusters, ${strategy}`, { stops: fifty, num_clusters: 5, strategy, depot, road_aware: true });
  measure(`50 stops straight-line, 5 clusters, ${strategy}`, { stops: fifty, num_clusters: 5, strategy, depot });
}
