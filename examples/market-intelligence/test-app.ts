// The market API on an injected clock for the contract tests: the simulated source (a short
// backfill keeps the tests quick), no timers, and `get` calling the origin as the server would.
// Bodies are `any` to the tests, as tests/helpers/gateway.ts's `json` is: each test reads the fields it checks.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { JsonAnswer, OriginAnswer, StreamAnswer } from "../shared/origin-server.ts";
import { createMarketApp } from "./app.ts";
import { HistoryRecorder } from "./history/recorder.ts";
import { openTestPgliteStore } from "./history/scratch-store.ts";
import { SimulatedMarketSource } from "./model/simulated/index.ts";

export const TEST_NOW = Date.parse("2026-11-26T12:00:30Z");

export async function testMarketApp(options: { seed?: number; now?: number } = {}) {
  const clock = { now: options.now ?? TEST_NOW };
  const source = new SimulatedMarketSource({ seed: options.seed ?? 21, now: () => clock.now, autoPoll: false, backfillDays: 10 });
  // The recorded history in memory, filled once over the source's own short backfill.
  const history = await openTestPgliteStore();
  await new HistoryRecorder({ store: history, source, backfillDays: 10 }).tick();
  const app = await createMarketApp({ source, history, background: false });
  const closeApp = app.close;
  app.close = async () => {
    await closeApp();
    await history.close();
  };
  async function request(path: string, query: Record<string, string> = {}, method = "GET"): Promise<OriginAnswer> {
    return app.origin.handle({ method, path, query: new URLSearchParams(query), body: undefined, headers: {}, probe: false });
  }
  return {
    app,
    source,
    clock,
    request,
    /** A JSON answer (fails the test if the endpoint answered a stream). */
    async get(path: string, query: Record<string, string> = {}): Promise<JsonAnswer & { body: any }> {
      const answer = await request(path, query);
      if ("stream" in answer) throw new Error(`${path} answered a stream`);
      return answer as JsonAnswer & { body: any };
    },
    /** Opens a stream endpoint into an in-memory sink: the frames it wrote, and the close function. */
    async open(path: string, query: Record<string, string> = {}) {
      const answer = await request(path, query);
      if (!("stream" in answer)) throw new Error(`${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      const frames: Array<{ event: string; data: any; id?: string }> = [];
      const close = (answer as StreamAnswer).stream({ event: (event, data, id) => frames.push({ event, data, id }), comment: () => undefined });
      return { frames, close };
    },
  };
}

export type TestMarketApp = Awaited<ReturnType<typeof testMarketApp>>;
