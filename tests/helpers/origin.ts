// A real origin server on loopback for gateway tests: records what it receives and answers per
// route, so tests can assert on headers, bodies and signatures the gateway sent.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedRequest = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };

export type OriginRoute = (req: ReceivedRequest, res: http.ServerResponse) => void | Promise<void>;

export type TestOrigin = {
  url: string;
  received: ReceivedRequest[];
  route(path: string, handler: OriginRoute): void;
  close(): Promise<void>;
};

export async function startTestOrigin(): Promise<TestOrigin> {
  const routes = new Map<string, OriginRoute>();
  const received: ReceivedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
    received.push(entry);
    const path = entry.url.split("?")[0];
    const handler = routes.get(path);
    if (!handler) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "no such route" }));
      return;
    }
    await handler(entry, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    route: (path, handler) => routes.set(path, handler),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers JSON with a status. */
export function json(status: number, body: unknown): OriginRoute {
  return (_req, res) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/**
 * The gateway tests' usual route: answers the status the query's `?status=` names (default 200)
 * with the JSON `{path}`, plus any extra response headers.
 */
export function statusRoute(path: string, headers: Record<string, string> = {}): OriginRoute {
  return (req, res) => {
    const status = Number(new URL(req.url, "http://origin").searchParams.get("status") ?? 200);
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ path }));
  };
}
