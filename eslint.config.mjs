// ESLint (flat config): typescript-eslint's recommended rules, React's rules of hooks and the
// Next.js plugin on the web app, and the repository's one import style ("@/…" across folders).
// `npm run lint`; Prettier owns formatting (`npm run format:check`), so no stylistic rules here.
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data/",
      "lib/db/generated/",
      "next-env.d.ts",
      "bench/results/",
      "playwright-report/",
      "test-results/",
      "packages/*/dist/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Unused names are errors unless they say they are deliberate with a leading underscore.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read JSON bodies of every shape; typing each response would only restate the assertions.
    files: ["tests/**", "e2e/**", "**/*.test.ts", "**/*.fuzz.ts", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // TypeScript checks names itself (and knows the DOM and Node types); ESLint's copy only misfires.
    files: ["**/*.ts", "**/*.tsx"],
    rules: { "no-undef": "off" },
  },
  {
    // One import style: across folders, import from the repository root ("@/lib/…"); siblings stay "./x".
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["packages/**", "examples/**", "prisma.config.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [{ regex: "^\\.\\./", message: 'Import across folders from the repository root: "@/lib/…".' }] }] },
  },
  {
    files: ["app/**/*.tsx", "app/**/*.ts", "lib/try-it/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { "react-hooks": reactHooks, "@next/next": nextPlugin },
    rules: { ...reactHooks.configs.recommended.rules, ...nextPlugin.configs.recommended.rules, ...nextPlugin.configs["core-web-vitals"].rules },
  },
);
