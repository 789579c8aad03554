// One engine per test file for the operations' tests: the real Gothenburg network with its graph and
// hierarchies cached in the OS temp dir across runs (the engine tests use the same directory).
import os from "node:os";
import path from "node:path";
import { PROFILES, RouteEngine } from "../engine/index.ts";
import type { OperationContext } from "./common.ts";

let engine: RouteEngine | undefined;

export function testEngine(): RouteEngine {
  engine ??= new RouteEngine({ dataDir: path.join(os.tmpdir(), "l402-hub-route-engine-test"), prepare: PROFILES.map((profile) => ({ profile })) });
  return engine;
}

/** An operation context at a fixed instant (Thursday 2026-11-26 10:00 in Gothenburg), so answers repeat. */
export function testContext(now = new Date("2026-11-26T09:00:00Z")): OperationContext {
  return { engine: testEngine(), now };
}
