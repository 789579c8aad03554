// Reads a request body with a hard byte limit, counting bytes as they arrive (Content-Length is
// not trusted) and giving up on clients that trickle data (slowloris).
import type { IncomingMessage } from "node:http";

export type BodyResult = { kind: "ok"; body: Buffer | null } | { kind: "too_large" } | { kind: "timeout" } | { kind: "aborted" };

export function readBody(req: IncomingMessage, limitBytes: number, timeoutMs: number): Promise<BodyResult> {
  const declared = req.headers["content-length"];
  const hasBody = (declared !== undefined && declared !== "0") || req.headers["transfer-encoding"] !== undefined;
  if (!hasBody) {
    req.resume();
    return Promise.resolve({ kind: "ok", body: null });
  }
  if (declared !== undefined && Number(declared) > limitBytes) return Promise.resolve({ kind: "too_large" });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onAbort);
      req.off("aborted", onAbort);
      if (result.kind !== "ok") req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) finish({ kind: "too_large" });
      else chunks.push(chunk);
    };
    const onEnd = () => finish({ kind: "ok", body: Buffer.concat(chunks, size) });
    const onAbort = () => finish({ kind: "aborted" });
    const timer = setTimeout(() => finish({ kind: "timeout" }), timeoutMs);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("aborted", onAbort);
  });
}
