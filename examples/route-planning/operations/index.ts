// The seven operations of the route-planning API (spec 2 section 4.1), in the order the directory lists them.
import { clusterOperation } from "./cluster.ts";
import type { Operation } from "./common.ts";
import { matrixOperation } from "./matrix.ts";

export const operations: Operation[] = [clusterOperation as Operation, matrixOperation as Operation];
