import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Database drivers, wasm and native crypto stay outside the bundle so that Next's route
  // handlers share the very instances server.ts created (same module cache, same globalThis).
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "ioredis",
    "bolt11",
    "secp256k1",
    "macaroon",
  ],
  poweredByHeader: false,
  typedRoutes: false,
  experimental: {
    // middleware.ts makes Next buffer each request body for the route (10 MB by default) before our
    // 1 MB JSON reader sees it. Twice that limit keeps every over-limit body a 413 (Next cuts the
    // copy at a chunk boundary, still above 1 MB) while no request holds 10 MB in memory.
    proxyClientMaxBodySize: 2 * 1024 * 1024,
  },
};

export default nextConfig;
