// The seven operations of the route-planning API (spec 2 section 4.1), in the order the directory lists them.
import { clusterOperation } from "./cluster.ts";
import type { Operation } from "./common.ts";
import { directionsOperation } from "./directions.ts";
import { matrixOperation } from "./matrix.ts";
import { navigateOperation } from "./navigate.ts";
import { optimizeFleetOperation } from "./optimize-fleet.ts";
import { optimizeOperation } from "./optimize.ts";
import { reachableOperation } from "./reachable.ts";

export const operations: Operation[] = [
  clusterOperation,
  directionsOperation,
  matrixOperation,
  navigateOperation,
  optimizeOperation,
  optimizeFleetOperation,
  reachableOperation,
] as Operation[];
