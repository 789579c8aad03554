// The worker loop: periodic jobs (invoice settlement now; webhook delivery, health probes,
// session expiry and billing join as they land). Several workers may run: singleton jobs take a
// lease row so only one instance runs each tick; row-level jobs claim with SKIP LOCKED.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";

export type Job = {
  name: string;
  intervalMs: number;
  /** True when only one worker in the cluster may run it per interval. */
  singleton: boolean;
  run(): Promise<void>;
  /** Releases what the job keeps between runs (connections, attempts in flight); called once on stop. */
  close?(): Promise<void>;
};

export type Worker = { stop(): Promise<void>; runOnce(name: string): Promise<void> };

/**
 * Takes the job's lease for one interval; false when another worker holds it. The lease runs on the
 * database's clock (now() + lease), the one clock every worker shares, so neither a worker's clock
 * nor the session's time zone can shorten or stretch it.
 */
export async function acquireLease(prisma: PrismaClient, name: string, owner: string, intervalMs: number): Promise<boolean> {
  const leaseMs = Math.max(1000, intervalMs - 250);
  const rows = await prisma.$queryRaw<{ name: string }[]>`
    INSERT INTO "JobLease" ("name", "lockedUntil", "lastRunAt", "owner")
    VALUES (${name}, now() + ${leaseMs}::double precision * interval '1 millisecond', now(), ${owner})
    ON CONFLICT ("name") DO UPDATE SET "lockedUntil" = EXCLUDED."lockedUntil", "lastRunAt" = now(), "owner" = EXCLUDED."owner"
      WHERE "JobLease"."lockedUntil" < now() OR "JobLease"."owner" = EXCLUDED."owner"
    RETURNING "name"`;
  return rows.length === 1;
}

/**
 * Who holds a lease, as `JobLease.owner` shows it: `<host>:<pid>:<random>`, so an operator (or the
 * soak, which kills the worker in the middle of a settlement pass) can tell which process runs a
 * singleton job; the random part keeps two workers of one pid (a restarted container) apart.
 */
export function leaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** The process id in a lease owner written by leaseOwner(), or null for any other form. */
export function leaseOwnerPid(owner: string | null): number | null {
  const match = owner ? /:(\d+):[0-9a-f]{8}$/.exec(owner) : null;
  return match ? Number(match[1]) : null;
}

/** Starts every job on its interval; a job never overlaps itself within one worker. */
export function startWorker(options: { prisma: PrismaClient; jobs: Job[]; log: Logger }): Worker {
  const owner = leaseOwner();
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<void>>();
  let stopped = false;

  const tick = (job: Job) => {
    if (stopped || running.has(job.name)) return running.get(job.name) ?? Promise.resolve();
    const run = (async () => {
      try {
        if (job.singleton && !(await acquireLease(options.prisma, job.name, owner, job.intervalMs))) return;
        await job.run();
      } catch (err) {
        options.log.error("job failed", { job: job.name, error: err });
      }
    })().finally(() => running.delete(job.name));
    running.set(job.name, run);
    return run;
  };

  for (const job of options.jobs) {
    timers.push(setInterval(() => void tick(job), job.intervalMs));
    setImmediate(() => void tick(job));
  }

  return {
    async stop() {
      stopped = true;
      timers.forEach(clearInterval);
      await Promise.allSettled(running.values());
      const closed = await Promise.allSettled(options.jobs.map((job) => job.close?.()));
      closed.forEach((result, i) => {
        if (result.status === "rejected") options.log.error("job close failed", { job: options.jobs[i].name, error: result.reason });
      });
    },
    async runOnce(name) {
      const job = options.jobs.find((j) => j.name === name);
      if (!job) throw new Error(`No job named ${name}`);
      await (running.get(name) ?? Promise.resolve());
      await job.run();
    },
  };
}
