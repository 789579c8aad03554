import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { Agent, type Dispatcher } from "undici";
import { describe, expect, it } from "vitest";
import { CallAbort } from "./deadlines.ts";
import { callOrigin, DirectBody, originTarget } from "./origin-call.ts";
import { normalizeRequestPath } from "@/lib/gateway/resolve-tenant.ts";

/** What originTarget did before it had a fast path: the URL parser on every call ("invalid" when it throws). */
function parsed(originUrl: string, path: string, search: string) {
  try {
    const base = new URL(originUrl);
    const url = new URL(`${base.pathname.replace(/\/+$/, "")}${path}${search}`, base);
    return { origin: url.origin, path: `${url.pathname}${url.search}` };
  } catch {
    return "invalid";
  }
}

function joined(originUrl: string, path: string, search: string) {
  try {
    return originTarget(originUrl, path, search);
  } catch {
    return "invalid";
  }
}

const origins = [
  "http://127.0.0.1:8080",
  "https://api.example.com/",
  "https://api.example.com/base/",
  "http://[::1]:3000/v2//",
  "https://user:pw@h.example/p%20q",
];

describe("originTarget", () => {
  it.each([
    ["/v1/entity/bc1q", ""],
    ["/v1/entity/bc1q", "?a=1&b=%20x"],
    ["/v1/caf%C3%A9", "?q=a+b"],
    ["/v1/café", "?q=ü"],
    ["/v1/a b", "?q=a b"],
    ["/v1/x", "?q=<script>"],
    ["/v1/x", "?q=a#frag"],
    ["/v1/{id}", '?q="x"'],
    ["/", ""],
    ["/v1/x/", "?"],
  ])("joins %s%s exactly as the URL parser does", (path, search) => {
    for (const origin of origins) expect(joined(origin, path, search)).toEqual(parsed(origin, path, search));
  });

  it("agrees with the URL parser on every normalized path and query", () => {
    const char = fc.constantFrom(..."aZ09-._~!$&'()*+,;=:@/%?# \"<>`{}|^[]\\é€\t\n".split(""));
    const text = fc.array(char, { maxLength: 24 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(fc.constantFrom(...origins), text, text, (origin, rawPath, query) => {
        const normalized = normalizeRequestPath(`/${rawPath.replace(/[?#]/g, "")}`);
        if ("problem" in normalized) return;
        const search = query ? `?${query}` : "";
        expect(joined(origin, normalized.path, search)).toEqual(parsed(origin, normalized.path, search));
      }),
      { numRuns: 3000 },
    );
  });

  it("throws on an origin URL that does not parse, as callOrigin expects", () => {
    expect(() => originTarget("not a url", "/v1", "")).toThrow();
  });
});

/** undici's side of a DirectBody, recorded: what the body asked of the upstream request. */
function upstream() {
  const calls: string[] = [];
  const controller = {
    paused: false,
    aborted: false,
    reason: null as Error | null,
    pause: () => void calls.push("pause"),
    resume: () => void calls.push("resume"),
    abort(reason: Error) {
      calls.push("abort");
      controller.aborted = true;
      controller.reason = reason;
    },
  };
  return { calls, controller: controller as unknown as Dispatcher.DispatchController };
}

/** Runs `serve` on a real ServerResponse; `leave` makes the client hang up first. Resolves with what the client read. */
async function withResponse(serve: (res: http.ServerResponse) => Promise<unknown>, leave = false): Promise<{ outcome: unknown; body: string }> {
  let outcome: Promise<unknown> = Promise.resolve();
  const server = http.createServer((req, res) => {
    const run = () =>
      (outcome = serve(res)
        .then(
          () => "resolved",
          (err: Error) => `rejected: ${err.message}`,
        )
        .finally(() => void (res.writableFinished || res.destroy())));
    if (leave) req.socket.once("close", () => setTimeout(run, 20));
    else run();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const body = await new Promise<string>((resolve) => {
    const req = http.get(url, (res) => {
      let text = "";
      res.on("data", (c) => (text += c)).on("close", () => resolve(text));
    });
    req.on("error", () => resolve(""));
    if (leave) setTimeout(() => req.destroy(), 20);
  });
  await new Promise((r) => setTimeout(r, leave ? 100 : 0));
  const result = { outcome: await outcome, body };
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  return result;
}

describe("DirectBody", () => {
  it("holds what arrives before the relay starts, pausing the upstream, and delivers it all", async () => {
    const { calls, controller } = upstream();
    const body = new DirectBody(controller);
    body.push(Buffer.from("held "));
    body.push(Buffer.from("twice, "));
    expect(calls).toEqual(["pause", "pause"]);
    const result = await withResponse(async (res) => {
      res.writeHead(200);
      const piped = body.pipeTo(res);
      body.push(Buffer.from("then live"));
      body.end();
      return piped;
    });
    expect(result).toEqual({ outcome: "resolved", body: "held twice, then live" });
    expect(calls).toContain("resume");
  });

  it("rejects at once, and aborts the upstream when dropped, if the client left before the relay began", async () => {
    const { calls, controller } = upstream();
    const body = new DirectBody(controller);
    body.push(Buffer.from("never read"));
    const result = await withResponse(async (res) => {
      try {
        return await body.pipeTo(res);
      } finally {
        body.destroy();
      }
    }, true);
    expect(result.outcome).toBe("rejected: The client went away");
    expect(calls).toContain("abort");
  });

  it("passes an upstream failure on, before or during the relay", async () => {
    const early = new DirectBody(upstream().controller);
    early.fail(new Error("origin reset"));
    expect((await withResponse((res) => early.pipeTo(res))).outcome).toBe("rejected: origin reset");
    const late = new DirectBody(upstream().controller);
    const result = await withResponse(async (res) => {
      res.writeHead(200);
      const piped = late.pipeTo(res);
      late.push(Buffer.from("part"));
      late.fail(new Error("origin reset"));
      return piped;
    });
    expect(result.outcome).toBe("rejected: origin reset");
  });
});

describe("callOrigin with a timeout of its own (probes)", () => {
  it("ends a call the origin never answers as a timeout, through its signal", async () => {
    const server = http.createServer(() => {}); // accepts and never answers
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const dispatcher = new Agent();
    const signal = new CallAbort();
    const started = Date.now();
    try {
      const result = await callOrigin({
        dispatcher,
        originUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        method: "GET",
        path: "/slow",
        search: "",
        clientHeaders: {},
        body: null,
        requestId: "r1",
        clientIp: "",
        forwardedHost: "",
        forwardedProto: "https",
        secrets: { gatewaySecret: "g", hmacSecret: "h" },
        timeoutMs: 200,
        headersTimeoutMs: 10_000, // the whole-call timeout, not undici's header timer, must end it
        signal,
        probe: true,
      });
      expect(result).toEqual({ kind: "timeout", message: "The origin did not answer in time" });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(signal.aborted).toBe(true);
    } finally {
      await dispatcher.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
