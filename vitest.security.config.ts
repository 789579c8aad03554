// `npm run test:security`: the hostile-input suite a security reviewer runs in one command. Every
// regression test of the security review (tests/security), the older hostile-input, SSRF, forged
// credential, egress and signature tests, and the fuzz targets (FUZZ_SECONDS each). docs/security.md
// lists what each part covers.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "tests/security/**/*.test.ts",
      "tests/fuzz/**/*.fuzz.ts",
      "tests/gateway/hostile-input.test.ts",
      "tests/gateway/rate-limits.test.ts",
      "tests/gateway/origin-egress.test.ts",
      "tests/gateway/origin-guard.test.ts",
      "tests/api/origin-egress.test.ts",
      "tests/api/l402-settlement.test.ts",
      "tests/auth/lnurl-auth.test.ts",
      "tests/webhooks/verify.test.ts",
      "lib/origin/ssrf.test.ts",
      "lib/l402/*.test.ts",
      "tests/sdk/l402-headers.test.ts",
      "lib/origin/cookie-policy.test.ts",
      "lib/gateway/route-match.test.ts",
      "lib/gateway/rate-limit.test.ts",
      "packages/sdk/src/origin/origin-signature.test.ts",
    ],
  },
});
