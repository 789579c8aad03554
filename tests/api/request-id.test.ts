// A platform API handler's unexpected failure: the client gets the generic 500, the log gets one
// JSON line naming the request id the web process assigned (x-hub-request-id), the route and the error.
import { afterEach, describe, expect, it, vi } from "vitest";
import { withErrors } from "@/lib/api/handler.ts";
import { AppError } from "@/lib/errors/index.ts";
import { call, useApiContext } from "./helpers.ts";

useApiContext();

describe("platform API errors", () => {
  afterEach(() => vi.restoreAllMocks());

  it("log the request id with the hidden error; the answer shows neither", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const boom = withErrors(async () => {
      throw new Error("database password is hunter2");
    });
    const res = await call(boom, { method: "POST", path: "/tenants/t1/boom", headers: { "x-hub-request-id": "4f1c7a52-0d7e-4a8b-9c3e-2b6f0e5d9a11" } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: "internal", message: "Internal server error" } });
    const logged = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "platform API request failed");
    expect(logged).toEqual([
      expect.objectContaining({
        level: "error",
        part: "web",
        requestId: "4f1c7a52-0d7e-4a8b-9c3e-2b6f0e5d9a11",
        method: "POST",
        path: "/api/tenants/t1/boom",
        error: expect.objectContaining({ message: "database password is hunter2" }),
      }),
    ]);
  });

  it("log nothing for an expected error (a 4xx is the client's)", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const refuse = withErrors(async () => {
      throw new AppError("conflict", "That slug is taken");
    });
    const res = await call(refuse, { method: "POST", path: "/x" });
    expect(res.status).toBe(409);
    expect(lines.filter((line) => line.includes("platform API request failed"))).toEqual([]);
  });
});
