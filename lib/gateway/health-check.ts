// GET /healthz for load balancers: the database and the store; 503 only without the database. It is
// unauthenticated and unlimited, so every check within a second shares one probe: a flood costs
// the database one query a second (docs/decisions.md).
import type { PrismaClient } from "@/lib/db/client.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import type { RequestContext } from "./request-context.ts";
import { sendJson } from "./write-response.ts";

type Probe = { startedAt: number; result: Promise<{ database: string; storeOk: boolean }> };

/** The gateway's health answer, one shared probe a second. */
export class HealthCheck {
  private probe: Probe | null = null;

  constructor(private readonly deps: { prisma: PrismaClient; store: KeyValueStore }) {}

  /** Answers the request with the latest probe's result, probing again when it is a second old. */
  async answer(ctx: RequestContext): Promise<void> {
    const now = Date.now();
    if (!this.probe || now - this.probe.startedAt >= 1_000) {
      this.probe = {
        startedAt: now,
        result: Promise.all([
          this.deps.prisma.$queryRaw`SELECT 1`.then(
            () => "ok",
            () => "unavailable",
          ),
          this.deps.store.ping().catch(() => false),
        ]).then(([database, storeOk]) => ({ database, storeOk })),
      };
    }
    const { database, storeOk } = await this.probe.result;
    // Without the database no paid call can be served: out of the balancer. Without the store a
    // gateway serves on (lib/store/degrading.ts), so it stays in, reporting the degradation.
    const status = database !== "ok" ? "unavailable" : storeOk ? "ok" : "degraded";
    sendJson(ctx, database === "ok" ? 200 : 503, { status, database, store: storeOk ? "ok" : "unavailable" }, { "cache-control": "no-store" });
  }
}
