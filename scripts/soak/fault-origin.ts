// The soak's origin: a plain HTTP server on loopback behind the gateway whose failure mode can be
// switched while the load runs (answer, 503, hang past the gateway's origin timeout, close mid-body).
import http from "node:http";
import type { AddressInfo } from "node:net";

/** How the origin answers paid calls right now. */
export type OriginMode = "ok" | "error_5xx" | "hang" | "close_mid_body";

export type FaultOrigin = {
  url: string;
  mode: OriginMode;
  close(): Promise<void>;
};

/** A JSON body of about `bytes` bytes (per_kb sessions pay by size). */
function bodyOf(bytes: number, path: string): string {
  const head = JSON.stringify({ path, at: new Date().toISOString(), pad: "" });
  return head.replace('"pad":""', `"pad":"${"x".repeat(Math.max(0, bytes - head.length))}"`);
}

/**
 * Starts the origin. Routes: `/v1/events` streams SSE (an event every 500 ms until the client
 * leaves); `/v1/kb` answers ~1.5 KB; everything else ~200 bytes. Streams and free calls ignore the
 * fault mode (they carry no payment to refund); paid calls follow it.
 */
export async function startFaultOrigin(): Promise<FaultOrigin> {
  const hanging = new Set<http.ServerResponse>();
  const origin: FaultOrigin = { url: "", mode: "ok", close: async () => {} };
  const server = http.createServer((req, res) => {
    req.resume();
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/v1/events") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      let n = 0;
      const timer = setInterval(() => res.write(`id: ${++n}\ndata: {"tick":${n}}\n\n`), 500);
      res.on("close", () => clearInterval(timer));
      return;
    }
    const paid = path !== "/v1/free";
    const mode = paid ? origin.mode : "ok";
    if (mode === "error_5xx") {
      res.writeHead(503, { "content-type": "application/json" }).end('{"error":"injected 503"}');
      return;
    }
    if (mode === "hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    const body = bodyOf(path === "/v1/kb" ? 1500 : 200, path);
    if (mode === "close_mid_body") {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      res.write(body.slice(0, body.length >> 1), () => res.socket?.destroy());
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=5" }).end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin.close = async () => {
    for (const res of hanging) res.socket?.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return origin;
}
