// middleware.ts: pages and API responses carry the security headers.
import { expect, test } from "@playwright/test";

test("pages and the platform API carry security headers", async ({ request }) => {
  for (const path of ["/", "/directory", "/api/health"]) {
    const res = await request.get(path);
    expect(res.ok(), path).toBe(true);
    expect(res.headers()["x-content-type-options"], path).toBe("nosniff");
    expect(res.headers()["x-frame-options"], path).toBe("DENY");
    expect(res.headers()["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
  }
});
