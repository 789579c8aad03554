// A process that starts while Redis is down: its first command waits for the connection and fails
// over; every later one is answered from memory without touching Redis until Redis is back, and
// then the store is shared again. The Redis here is a private redis-server on a free port.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { Logger } from "@/lib/logging/logger.ts";
import { freePort } from "@/tests/helpers/free-port.ts";
import { DegradingStore } from "./degrading.ts";
import { RedisStore } from "./redis.ts";

const runsHere = spawnSync("redis-server", ["--version"]).error === undefined || Boolean(process.env.CI);
const messages: string[] = [];
const log: Logger = {
  debug: () => {},
  info: (message) => void messages.push(message),
  warn: (message) => void messages.push(message),
  error: (message) => void messages.push(message),
  child: () => log,
};

let redis: ChildProcess | null = null;
afterAll(async () => {
  if (!redis) return;
  const exited = once(redis, "exit");
  redis.kill("SIGKILL");
  await exited;
});

describe.runIf(runsHere)("a store whose Redis is down at start", () => {
  it("fails over on its first command, answers the rest from memory, and shares again once Redis is up", async () => {
    const port = await freePort();
    const primary = new RedisStore(`redis://127.0.0.1:${port}`, "start-down:");
    const reads = vi.spyOn(primary, "get");
    const store = new DegradingStore(primary, log);
    try {
      await store.set("k", "v");
      expect(store.degraded).toBe(true);
      for (let i = 0; i < 3; i++) expect(await store.get("k")).toBe("v");
      expect(reads).not.toHaveBeenCalled();
      expect(messages.filter((m) => m.startsWith("store unavailable"))).toHaveLength(1);

      redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
      for (let i = 0; i < 200 && !primary.ready; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(primary.ready).toBe(true);
      await store.set("k", "shared");
      expect(store.degraded).toBe(false);
      expect(await primary.get("k")).toBe("shared");
      expect(messages.filter((m) => m.startsWith("store recovered"))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
