// deploy/haproxy.cfg is the file `npm run cluster` and a real deployment run: HAProxy itself checks
// it with the addresses the cluster script gives it (.ci/run installs haproxy from Debian).
import { spawn, spawnSync } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { clusterPlan, haproxyEnvironment } from "@/scripts/cluster.ts";
import { freePort } from "@/tests/helpers/free-port.ts";

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

  // Found by `npm run soak`: with `retry-on empty-response` a gateway that consumed a proof and then
  // lost its answer (the origin closed mid-body) had the request re-sent to the other gateway, which
  // saw a spent proof: the client paid and got a 402. A request that reached a process is never re-sent.
  it.runIf(runsHere)("never re-sends a request a gateway received and closed without answering", async () => {
    const received: string[] = [];
    const gateway = (name: string) =>
      http.createServer((req, res) => {
        if (req.url === "/healthz") return void res.writeHead(200).end("ok");
        received.push(name);
        req.socket.destroy();
      });
    const servers = [gateway("gateway1"), gateway("gateway2")];
    const [gw1, gw2, web, stats, front] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    await Promise.all(servers.map((s, i) => new Promise<void>((resolve) => s.listen(i === 0 ? gw1 : gw2, "127.0.0.1", resolve))));
    const env = {
      ...process.env,
      ...haproxyEnvironment(clusterPlan({ GATEWAY_PORT: String(front), PORT: String(web) })),
      HUB_STATS_PORT: String(stats),
      HUB_GATEWAY_1: `127.0.0.1:${gw1}`,
      HUB_GATEWAY_2: `127.0.0.1:${gw2}`,
    };
    const lb = spawn("haproxy", ["-db", "-f", config], { env, stdio: "ignore" });
    try {
      // Both gateways UP on HAProxy's own status page (two health checks 1 s apart), then one paid call.
      const bothUp = async () => {
        const csv = await fetch(`http://127.0.0.1:${stats}/;csv`).then(
          (r) => r.text(),
          () => "",
        );
        const up = csv.split("\n").filter((line) => /^gateway,gateway[12],/.test(line) && line.split(",")[17] === "UP");
        return up.length === 2;
      };
      for (let i = 0; i < 100 && !(await bothUp()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await bothUp(), "both gateways UP in HAProxy").toBe(true);
      const answer = await fetch(`http://127.0.0.1:${front}/gw/t/v1/paid`, { headers: { authorization: "L402 m:p" } }).then(
        (r) => r.status,
        () => "connection closed",
      );
      expect(received).toEqual([expect.stringMatching(/^gateway[12]$/)]);
      // The client learns the call failed (HAProxy closes its connection, or answers 502) and may retry with its proof.
      expect([502, "connection closed"]).toContain(answer);
    } finally {
      const exited = new Promise((resolve) => lb.once("exit", resolve));
      lb.kill("SIGKILL");
      await exited;
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    }
  });

  it("rejects a port base outside the usable range", () => {
    expect(() => clusterPlan({ CLUSTER_PORT_BASE: "80" })).toThrow(/CLUSTER_PORT_BASE/);
  });
});
