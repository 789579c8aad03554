// Unsafe defaults when NODE_ENV is unset (issue 23, finding 10): the dev mailbox (everyone's sign-in
// links), the dev Lightning node with its public pay API (/api/dev/*), private origins and a bind to
// 0.0.0.0 were all on for any install that forgot NODE_ENV. Now, outside production, the servers
// bind to loopback unless HOST says otherwise, and the development features are on only while HOST
// is a loopback address or DEV_FEATURES=true opts in; a production start with any of them on
// refuses, naming the variable. Checked on the configuration and on a real launcher start.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@/lib/config/index.ts";
import { freePort } from "@/tests/helpers/free-port.ts";

const root = path.resolve(import.meta.dirname, "../..");
const tmp = () => mkdtempSync(path.join(os.tmpdir(), "hub-devdefaults-"));
const PRODUCTION = { NODE_ENV: "production", APP_SECRET: "x".repeat(32), SITE_URL: "https://hub.example.com" };

function devFeaturesOf(env: Record<string, string>) {
  const config = loadConfig({ DATA_DIR: tmp(), ...env });
  return {
    host: config.host,
    devFeatures: config.devFeatures,
    lightningDevNode: config.lightningDevNode,
    devMailbox: config.devMailbox,
    originAllowPrivate: config.originAllowPrivate,
  };
}

const ALL_ON = { devFeatures: true, lightningDevNode: true, devMailbox: true, originAllowPrivate: true };
const ALL_OFF = { devFeatures: false, lightningDevNode: false, devMailbox: false, originAllowPrivate: false };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ DATA_DIR: tmp(), ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return expect.unreachable("the configuration was accepted") as never;
}

describe("development features", () => {
  it("are on for a start with nothing configured, which binds to loopback only", () => {
    expect(devFeaturesOf({})).toEqual({ host: "127.0.0.1", ...ALL_ON });
  });

  it("are off outside loopback unless DEV_FEATURES opts in", () => {
    for (const HOST of ["0.0.0.0", "::", "192.0.2.2", "hub.internal"]) {
      expect(devFeaturesOf({ HOST }), HOST).toEqual({ host: HOST, ...ALL_OFF });
      expect(devFeaturesOf({ HOST, NODE_ENV: "development" }), HOST).toEqual({ host: HOST, ...ALL_OFF });
      expect(devFeaturesOf({ HOST, DEV_FEATURES: "true" }), HOST).toEqual({ host: HOST, ...ALL_ON });
    }
    for (const HOST of ["127.0.0.1", "127.1.2.3", "::1", "localhost"]) expect(devFeaturesOf({ HOST }), HOST).toEqual({ host: HOST, ...ALL_ON });
  });

  it("can be turned off one by one, or all at once", () => {
    expect(devFeaturesOf({ LIGHTNING_DEV_NODE: "false" })).toMatchObject({ devFeatures: true, lightningDevNode: false, devMailbox: true });
    expect(devFeaturesOf({ SMTP_URL: "smtp://mail.example.com:587" })).toMatchObject({ devFeatures: true, devMailbox: false });
    expect(devFeaturesOf({ ORIGIN_ALLOW_PRIVATE: "false" })).toMatchObject({ devFeatures: true, originAllowPrivate: false });
    expect(devFeaturesOf({ DEV_FEATURES: "false" })).toEqual({ host: "127.0.0.1", ...ALL_OFF });
  });

  it("refuse the dev node where development features are off, naming both variables", () => {
    const problems = problemsOf({ HOST: "0.0.0.0", LIGHTNING_DEV_NODE: "true" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^LIGHTNING_DEV_NODE: .*DEV_FEATURES/);
  });

  it("are off in production, which binds to every interface by default", () => {
    expect(devFeaturesOf(PRODUCTION)).toEqual({ host: "0.0.0.0", ...ALL_OFF });
    expect(devFeaturesOf({ ...PRODUCTION, HOST: "127.0.0.1" })).toEqual({ host: "127.0.0.1", ...ALL_OFF });
    // Private origins stay an explicit egress choice of a self-hosted production install.
    expect(devFeaturesOf({ ...PRODUCTION, ORIGIN_ALLOW_PRIVATE: "true" })).toMatchObject({ devFeatures: false, originAllowPrivate: true });
  });

  it("make a production start refuse, naming the variable", () => {
    expect(problemsOf({ ...PRODUCTION, DEV_FEATURES: "true" })).toEqual([expect.stringMatching(/^DEV_FEATURES: .*NODE_ENV=production/)]);
    expect(problemsOf({ ...PRODUCTION, LIGHTNING_DEV_NODE: "true" })).toEqual([expect.stringMatching(/^LIGHTNING_DEV_NODE: .*NODE_ENV=production/)]);
  });
});

/** A clean environment: nothing of the test run leaks into the launcher. */
function launcherEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, CHECKPOINT_DISABLE: "1", ...vars } as unknown as NodeJS.ProcessEnv;
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2_000 });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
}

let child: ReturnType<typeof spawn> | null = null;
afterEach(() => {
  // End the whole process group, so nothing the launcher started outlives the test.
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
  child = null;
});

function startLauncher(env: Record<string, string>, args: string[]) {
  const proc = spawn(process.execPath, ["--import", "tsx", "server.ts", ...args], {
    cwd: root,
    env: launcherEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  proc.stdout!.on("data", (d) => (output += d));
  proc.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { proc, exited, output: () => output };
}

describe("the launcher", () => {
  it("refuses a production start with a development feature on, naming the variable", async () => {
    const run = startLauncher({ ...PRODUCTION, DATA_DIR: tmp(), LIGHTNING_DEV_NODE: "true" }, ["--only=worker"]);
    child = run.proc;
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/LIGHTNING_DEV_NODE: .*NODE_ENV=production/);
  });

  it("binds to loopback when nothing is configured", async () => {
    const port = await freePort();
    const run = startLauncher({ DATA_DIR: tmp(), GATEWAY_PORT: String(port), PORT: "3999", SEED_DEMO: "false" }, ["--only=gateway"]);
    child = run.proc;
    const deadline = Date.now() + 60_000;
    while (!(await accepts("127.0.0.1", port))) {
      if (run.proc.exitCode !== null || Date.now() > deadline) throw new Error(`launcher did not listen:\n${run.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(run.output()).toContain('"address":"127.0.0.1:');
    // Reachable on loopback only: any other address of this machine is refused.
    const external = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && i.family === "IPv4" && !i.internal)
      .map((i) => i!.address);
    for (const address of external) expect(await accepts(address, port), address).toBe(false);
  });
});
