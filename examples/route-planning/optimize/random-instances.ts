// Random instances for the optimizers' tests and gap measurements: points on a 10 km square,
// straight-line meters at 10 m/s, optionally made asymmetric (one-way streets, hills) per pair.
import { seededRandom } from "../../shared/seeded-random.ts";

export interface RandomMatrix {
  cost: number[][];
  points: [number, number][];
}

/** A matrix over `nodes` random points; `asymmetry` 0.3 makes a→b up to 30 % dearer than b→a. */
export function randomMatrix(nodes: number, seed: number, asymmetry = 0): RandomMatrix {
  const random = seededRandom(seed);
  const points = Array.from({ length: nodes }, () => [random() * 10_000, random() * 10_000] as [number, number]);
  const cost = points.map((a, i) =>
    points.map((b, j) => (i === j ? 0 : Math.round(Math.hypot(a[0] - b[0], a[1] - b[1]) / 10) * (1 + asymmetry * random()) + 30)),
  );
  return { cost, points };
}
