// deploy/haproxy.cfg is the file `npm run cluster` and a real deployment run: HAProxy itself checks
// it with the addresses the cluster script gives it (.ci/run installs haproxy from Debian).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { clusterPlan, haproxyEnvironment } from "@/scripts/cluster.ts";

const config = path.resolve(import.meta.dirname, "../../deploy/haproxy.cfg");
// A developer's machine may lack HAProxy (the README's test command needs no server installed);
// CI installs it, so there the check always runs.
const haproxyMissing = spawnSync("haproxy", ["-v"]).error !== undefined;
const runsHere = !haproxyMissing || Boolean(process.env.CI);

describe("deploy/haproxy.cfg", () => {
  it.runIf(runsHere)("is valid for the addresses npm run cluster gives it", () => {
    const plan = clusterPlan({ CLUSTER_PORT_BASE: "7400", PORT: "3000", GATEWAY_PORT: "8402" });
    const env = haproxyEnvironment(plan);
    expect(env).toMatchObject({ HUB_WEB_1: "127.0.0.1:7401", HUB_GATEWAY_2: "127.0.0.1:7412", HUB_GATEWAY_PORT: "8402" });
    const check = spawnSync("haproxy", ["-c", "-f", config], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(check.error, "haproxy is not installed: apt-get install haproxy").toBeUndefined();
    expect(check.stderr + check.stdout).toContain("Configuration file is valid");
    expect(check.status).toBe(0);
  });

  it.runIf(runsHere)("refuses an address it was not given, rather than binding somewhere unexpected", () => {
    const env = { ...haproxyEnvironment(clusterPlan({})), HUB_GATEWAY_1: "" };
    const check = spawnSync("haproxy", ["-c", "-f", config], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(check.status).not.toBe(0);
  });

  it("rejects a port base outside the usable range", () => {
    expect(() => clusterPlan({ CLUSTER_PORT_BASE: "80" })).toThrow(/CLUSTER_PORT_BASE/);
  });
});
