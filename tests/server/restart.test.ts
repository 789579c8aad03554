// The launcher on embedded defaults: applies migrations, seeds the demo tenant, answers 402 from
// the demo endpoint, stops cleanly on SIGTERM and comes back with every row intact.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client.ts";
import { freePort } from "@/tests/helpers/free-port.ts";

const root = path.resolve(import.meta.dirname, "../..");

/** A clean environment: none of the test run's DATABASE_URL/REDIS_URL leaks into the launcher. */
function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, CHECKPOINT_DISABLE: "1", ...vars } as unknown as NodeJS.ProcessEnv;
}

let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill("SIGKILL");
  child = null;
});

async function startLauncher(dataDir: string, gatewayPort: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", "server.ts", "--only=gateway,worker"], {
    cwd: root,
    env: childEnv({ DATA_DIR: dataDir, GATEWAY_PORT: String(gatewayPort), PORT: "3999", HOST: "127.0.0.1", LOG_LEVEL: "warn" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  proc.stdout!.on("data", (d) => (output += d));
  proc.stderr!.on("data", (d) => (output += d));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`launcher exited early:\n${output}`);
    const ok = await fetch(`http://127.0.0.1:${gatewayPort}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return proc;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`launcher did not become healthy:\n${output}`);
}

async function stop(proc: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  proc.kill("SIGTERM");
  return exited;
}

describe("npm start on embedded defaults", () => {
  it("seeds the demo API, answers 402, and keeps its data across a restart", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "hub-restart-"));
    const port = await freePort();

    child = await startLauncher(dataDir, port);
    const first = await fetch(`http://127.0.0.1:${port}/gw/demo/v1/fortune`);
    expect(first.status).toBe(402);
    const firstBody = (await first.json()) as { paymentHash: string; amountSats: number };
    expect(firstBody.amountSats).toBe(1);
    expect(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.json())).toMatchObject({ status: "ok", database: "ok" });
    expect(await stop(child)).toBe(0);
    const secret = readFileSync(path.join(dataDir, "app-secret"), "utf8");

    child = await startLauncher(dataDir, port);
    const second = await fetch(`http://127.0.0.1:${port}/gw/demo/v1/fortune`);
    expect(second.status).toBe(402);
    expect(await stop(child)).toBe(0);
    child = null;
    expect(readFileSync(path.join(dataDir, "app-secret"), "utf8")).toBe(secret);

    const db = await openDatabase({ databaseUrl: null, pgliteDir: path.join(dataDir, "pglite"), migrate: false });
    try {
      expect(await db.prisma.tenant.count({ where: { slug: "demo" } })).toBe(1);
      const invoices = await db.prisma.invoice.findMany({ orderBy: { createdAt: "asc" } });
      expect(invoices.map((i) => i.paymentHash)).toContain(firstBody.paymentHash);
      expect(invoices).toHaveLength(2);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("refuses to start with invalid configuration, naming the variable", async () => {
    const proc = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
      cwd: root,
      env: childEnv({ DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "hub-bad-")), GATEWAY_PORT: "eighty" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const code = await new Promise((resolve) => proc.once("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("GATEWAY_PORT:");
    expect(stderr).toContain('"eighty"');
  }, 60_000);
});
