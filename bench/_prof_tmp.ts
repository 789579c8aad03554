import { performance } from "node:perf_hooks";
import { SimulatedMarketSource } from "@/examples/market-intelligence/model/simulated/index.ts";
const TEST_NOW = Date.parse("2026-11-26T12:00:30Z");
let t = performance.now();
new SimulatedMarketSource({ seed: 21, now: () => TEST_NOW, autoPoll: false, backfillDays: 10 });
console.log("source", (performance.now() - t).toFixed(0));
