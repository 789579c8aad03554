// The worker loop's lifecycle: stop() lets a running job finish, then closes every job once, and a
// job's close failing is logged without keeping the others from closing.
import { describe, expect, it } from "vitest";
import { startWorker, type Job } from "@/lib/jobs/worker.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import type { PrismaClient } from "@/lib/db/client.ts";

// Non-singleton jobs never touch the lease table, so no database is involved here.
const noDatabase = {} as PrismaClient;

describe("startWorker", () => {
  it("closes each job after its running tick has finished", async () => {
    const order: string[] = [];
    let release!: () => void;
    const slow: Job = {
      name: "slow",
      intervalMs: 60_000,
      singleton: false,
      run: () => {
        order.push("run:start");
        return new Promise<void>((resolve) => (release = () => (order.push("run:end"), resolve())));
      },
      close: async () => void order.push("close:slow"),
    };
    const failing: Job = { name: "failing", intervalMs: 60_000, singleton: false, run: async () => {}, close: async () => Promise.reject(new Error("nope")) };
    const plain: Job = { name: "plain", intervalMs: 60_000, singleton: false, run: async () => {} };
    const errors: unknown[] = [];
    const log = createLogger("silent");
    log.error = (message: string, fields?: Record<string, unknown>) => void errors.push({ message, ...fields });
    const worker = startWorker({ prisma: noDatabase, jobs: [slow, failing, plain], log });
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(["run:start"]);
    const stopped = worker.stop();
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(["run:start"]);
    release();
    await stopped;
    expect(order).toEqual(["run:start", "run:end", "close:slow"]);
    expect(errors).toEqual([expect.objectContaining({ message: "job close failed", job: "failing" })]);
  });
});
