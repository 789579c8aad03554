// Shared setup for the platform API tests: a real in-memory database registered as the server
// context, and a way to call exported route handlers the way Next 16 does.
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { RouteHandler } from "@/lib/api/handler.ts";
import { createTenant } from "@/lib/tenants/create-tenant.ts";
import { buildServerContext, registerServerContext, type ServerContext } from "@/lib/server-context.ts";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

/** Registers a fresh database per test file and empties it before each test. */
export function useApiContext(overrides: Record<string, string | undefined> = {}): { test: () => TestContext; server: () => ServerContext } {
  let t: TestContext;
  let server: ServerContext;
  beforeAll(async () => {
    t = await createTestContext(overrides);
    server = buildServerContext(t);
    registerServerContext(server);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await t.reset();
  });
  return { test: () => t, server: () => server };
}

export type CallOptions = {
  method: string;
  /** Path under /api, e.g. `/tenants/abc/endpoints`. */
  path: string;
  params?: Record<string, string>;
  /** Workspace API key or admin token, sent as `Authorization: Bearer`. */
  token?: string;
  /** JSON-encoded unless a string is given (to send malformed JSON). */
  body?: unknown;
  headers?: Record<string, string>;
};

export type CallResult = { status: number; body: any; headers: Headers };

/** Calls a route handler with a real Request and `{params: Promise}` as Next 16 passes them. */
export async function call(handler: RouteHandler, opts: CallOptions): Promise<CallResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  }
  const req = new Request(`http://127.0.0.1:3000/api${opts.path}`, { method: opts.method, headers, body });
  const res = await handler(req, { params: Promise.resolve(opts.params ?? {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** A workspace made the way the admin route makes it; returns its id and first API key. */
export async function seedTenant(t: TestContext, slug = "acme", email = "owner@example.com") {
  return createTenant(t.db.prisma, t.config.appSecret, { slug, name: `${slug} API`, ownerEmail: email });
}
