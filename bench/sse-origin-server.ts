// The SSE origin of the stream test, as a server to run anywhere: in a process of its own
// (bench/sse-origin.ts, the baseline and the gateway's origin) or inside the clients' process
// (bench/gateway.ts's no-hop reference). Every event carries the moment it was written as `t`, in
// milliseconds of the system's monotonic clock (process.hrtime, CLOCK_MONOTONIC), which every
// process on the machine shares: a client in any process subtracts it from its own reading.
//   GET /v1/stream?group=g       an SSE stream of group g (default "default"): `: connected`, then
//                                the events of its group's rounds
//   POST /round?mode=m&group=g   writes one event to every open stream of group g and answers when
//                                all are written: `burst` all at once, `paced` 10 streams every
//                                10 ms (one second per 1,000)
//   GET /open                    how many streams are open in all
// Groups let the clients that read the origin directly and the gateway's own upstream streams stay
// open side by side while only one of them receives events.
import http from "node:http";

export const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

export type SseOrigin = {
  server: http.Server;
  /** One round of events to a group's streams (what POST /round does); resolves with how many were written. */
  round(mode: "burst" | "paced", group?: string): Promise<number>;
  /** Streams open right now, in all groups. */
  open(): number;
};

export function createSseOrigin(): SseOrigin {
  const groups = new Map<string, Set<http.ServerResponse>>();
  const groupOf = (url: URL) => url.searchParams.get("group") ?? "default";
  const stamp = () => `data: ${JSON.stringify({ t: monotonicMs() })}\n\n`;

  async function round(mode: "burst" | "paced", group = "default"): Promise<number> {
    const clients = [...(groups.get(group) ?? [])];
    if (mode === "burst") {
      const frame = stamp();
      for (const client of clients) client.write(frame);
      return clients.length;
    }
    for (let i = 0; i < clients.length; i += 10) {
      for (const client of clients.slice(i, i + 10)) client.write(stamp());
      await new Promise((r) => setTimeout(r, 10));
    }
    return clients.length;
  }
  const open = () => [...groups.values()].reduce((sum, group) => sum + group.size, 0);

  const server = http.createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? "/", "http://origin");
    if (url.pathname === "/round" && req.method === "POST") {
      const mode = url.searchParams.get("mode") === "burst" ? "burst" : "paced";
      void round(mode, groupOf(url)).then((written) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ written })));
      return;
    }
    if (url.pathname === "/open") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ open: open() }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.flushHeaders();
    res.write(": connected\n\n");
    const group = groups.get(groupOf(url)) ?? new Set();
    groups.set(groupOf(url), group);
    group.add(res);
    res.on("close", () => group.delete(res));
  });
  return { server, round, open };
}
