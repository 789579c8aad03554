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
};

export default nextConfig;
