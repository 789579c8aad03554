// scripts/hub.ts against the real admin route (fetch is routed to the handler in-process).
import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/admin/tenants/route.ts";
import { runHubCli, type HubCliIo } from "@/scripts/hub.ts";
import { ADMIN_TOKEN, useApiContext } from "./helpers.ts";

const api = useApiContext();

function io(token: string | null = ADMIN_TOKEN) {
  const out: string[] = [];
  const err: string[] = [];
  const requests: Request[] = [];
  const cli: HubCliIo = {
    config: { apiUrl: "http://127.0.0.1:3000/api", hubAdminToken: token },
    fetch: async (input, init) => {
      const req = new Request(input, init);
      requests.push(req.clone());
      return POST(req, { params: Promise.resolve({}) });
    },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
  };
  return { cli, out, err, requests };
}

describe("npm run hub -- tenant create", () => {
  it("creates a tenant and prints the JSON", async () => {
    const { cli, out, requests } = io();
    const code = await runHubCli(["tenant", "create", "--slug", "acme", "--name", "Acme", "--email", "a@example.com", "--tags", "Maps, eu"], cli);
    expect(code).toBe(0);
    expect(requests[0].url).toBe("http://127.0.0.1:3000/api/admin/tenants");
    expect(requests[0].headers.get("authorization")).toBe(`Bearer ${ADMIN_TOKEN}`);
    const printed = JSON.parse(out.join(""));
    expect(printed).toEqual({ tenantId: expect.any(String), slug: "acme", apiKey: expect.stringMatching(/^hub_sk_/) });
    expect((await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).tags).toEqual(["maps", "eu"]);
  });

  it("passes --trial-days as trialDays; a bad value comes back as the route's 422", async () => {
    const { cli } = io();
    expect(await runHubCli(["tenant", "create", "--slug", "acme", "--name", "Acme", "--email", "a@example.com", "--trial-days", "0"], cli)).toBe(0);
    expect((await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).trialDays).toBe(0);
    const bad = io();
    expect(await runHubCli(["tenant", "create", "--slug", "acme2", "--name", "Acme", "--email", "a@example.com", "--trial-days", "soon"], bad.cli)).toBe(1);
    expect(bad.err.join("")).toMatch(/422[\s\S]*trialDays/);
  });

  it("prints the error body to stderr and exits 1 on a non-2xx answer", async () => {
    const args = ["tenant", "create", "--slug", "acme", "--name", "Acme", "--email", "a@example.com"];
    expect(await runHubCli(args, io().cli)).toBe(0);
    const { cli, out, err } = io();
    expect(await runHubCli(args, cli)).toBe(1);
    expect(out).toEqual([]);
    expect(err.join("")).toMatch(/409[\s\S]*"code": "conflict"/);
    const unauthorized = io("wrong-token-0123456789");
    expect(await runHubCli(args, unauthorized.cli)).toBe(1);
    expect(unauthorized.err.join("")).toContain("unauthorized");
  });

  it("prints usage for --help and refuses incomplete commands", async () => {
    const help = io();
    expect(await runHubCli(["--help"], help.cli)).toBe(0);
    expect(help.out.join("")).toContain("tenant create --slug");
    const missing = io();
    expect(await runHubCli(["tenant", "create", "--slug", "x"], missing.cli)).toBe(2);
    expect(missing.err.join("")).toContain("--name, --email");
    expect(missing.requests).toEqual([]);
  });
});
