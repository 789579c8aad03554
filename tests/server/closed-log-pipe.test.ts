// Issue 24 item 5: a process whose stdout/stderr reader has gone away must keep serving and still
// shut down cleanly on SIGTERM (lib/logging/safe-stdio.ts). Without the guard the gateway's own
// shutdown log line meets EPIPE and the process dies with exit code 1 instead of closing its
// database; the web part (e2e/closed-log-pipe.spec.ts, which needs the production build) never exits.
import { describe, expect, it } from "vitest";
import { freePort } from "@/tests/helpers/free-port.ts";
import { runWithClosedLogPipe } from "@/tests/helpers/closed-log-pipe.ts";

describe("a closed log pipe", () => {
  it("leaves the gateway serving, logging and shutting down cleanly on SIGTERM", async () => {
    const run = await runWithClosedLogPipe({
      role: "gateway",
      port: await freePort(),
      // Unknown tenants and bad credentials log at warn/info; the health check answers after them.
      paths: ["/", "/no-such-tenant/v1/x", "/healthz", "/healthz"],
    });
    expect(run.answers.slice(2)).toEqual([200, 200]);
    expect(run.answers.slice(0, 2).every((answer) => typeof answer === "number")).toBe(true);
    expect({ exitCode: run.exitCode, signal: run.signal }).toEqual({ exitCode: 0, signal: null });
  }, 300_000);
});
