// The seven operations of the route-planning API (spec 2 section 4.1), in the order the directory lists them.
import type { Operation } from "./common.ts";
import { directionsOperation } from "./directions.ts";
import { matrixOperation } from "./matrix.ts";
import { navigateOperation } from "./navigate.ts";
import { reachableOperation } from "./reachable.ts";

export const operations: Operation[] = [
  directionsOperation as Operation,
  matrixOperation as Operation,
  navigateOperation as Operation,
  reachableOperation as Operation,
];
