// A fake upstream's HTTP side: a real node:http server on loopback routing GETs to a function,
// recording every request, and able to answer the next requests with a scripted failure (a 429
// with Retry-After, a ban, an error envelope) or to hang (for timeouts) before routing resumes.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as text/plain (mempool.space's tip height); anything else as JSON. */
  body: unknown;
}

export type FakeRoute = (url: URL) => FakeAnswer;

export interface HttpFake {
  readonly url: string;
  readonly server: http.Server;
  /** Every request's URL, in order. */
  readonly requests: URL[];
  /** Answer the next `times` requests with `answer` instead of routing them. */
  failNext(answer: FakeAnswer, times?: number): void;
  /** Never answer the next `times` requests (until the fake closes): the client's timeout must fire. */
  hangNext(times?: number): void;
  /** Requests whose path is `path`. */
  count(path: string): number;
  close(): Promise<void>;
}

export async function startHttpFake(route: FakeRoute, extraHeaders: (url: URL) => Record<string, string> = () => ({})): Promise<HttpFake> {
  const requests: URL[] = [];
  const scripted: Array<FakeAnswer | "hang"> = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fake");
    requests.push(url);
    const next = scripted.shift();
    if (next === "hang") {
      hanging.add(response);
      return;
    }
    let answer: FakeAnswer;
    try {
      answer = next ?? (request.method === "GET" ? route(url) : { status: 405, body: { message: "method not allowed" } });
    } catch (error) {
      answer = { status: 500, body: { message: (error as Error).message } };
    }
    const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    response.writeHead(answer.status ?? 200, {
      "content-type": typeof answer.body === "string" ? "text/plain" : "application/json",
      ...extraHeaders(url),
      ...answer.headers,
    });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    requests,
    failNext(answer, times = 1) {
      for (let i = 0; i < times; i += 1) scripted.push(answer);
    },
    hangNext(times = 1) {
      for (let i = 0; i < times; i += 1) scripted.push("hang");
    },
    count(path) {
      return requests.filter((url) => url.pathname === path).length;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A query parameter as a number, or undefined when absent. */
export function numberParam(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  return value === null || value === "" ? undefined : Number(value);
}

/** Prices and sizes as exchanges send them: decimal strings. */
export function decimal(value: number, digits = 2): string {
  return value.toFixed(digits);
}
