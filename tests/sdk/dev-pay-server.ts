// The real dev-wallet pay route (app/api/dev/lightning/pay/route.ts) served on loopback, so the SDK's
// dev wallet and the spawned MCP server pay exactly as they would against `npm start`.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST } from "@/app/api/dev/lightning/pay/route.ts";
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { buildServerContext, registerServerContext } from "@/lib/server-context.ts";
import type { TestContext } from "@/tests/helpers/context.ts";

export type DevPayServer = {
  /** The platform API base (`{api_url}`), e.g. `http://127.0.0.1:1234/api`. */
  apiUrl: string;
  /** The pay route (`HUB_DEV_WALLET_URL`). */
  payUrl: string;
  /** Invoices paid through the route, in order. */
  paid: string[];
  close(): Promise<void>;
};

/** Registers the context as the web app's and serves the pay route with a Request/Response bridge. */
export async function startDevPayServer(ctx: TestContext, devNode: DevLightningNode): Promise<DevPayServer> {
  registerServerContext({ ...buildServerContext(ctx), devNode });
  const paid: string[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== "POST" || req.url !== "/api/dev/lightning/pay") {
      res.writeHead(404).end();
      return;
    }
    const body = Buffer.concat(chunks).toString("utf8");
    const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers: { "content-type": String(req.headers["content-type"] ?? "") }, body });
    const response = await POST(request, { params: Promise.resolve({}) });
    if (response.ok) paid.push((JSON.parse(body) as { invoice: string }).invoice);
    res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "application/json" });
    res.end(await response.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const apiUrl = `http://127.0.0.1:${port}/api`;
  return {
    apiUrl,
    payUrl: `${apiUrl}/dev/lightning/pay`,
    paid,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
