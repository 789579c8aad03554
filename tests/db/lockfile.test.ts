// `npm ci` on a clean machine needs every platform's optional binary listed in package-lock.json;
// `npm install` on these machines drops the ones the local registry does not serve.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { platformOf, restoreOptionalPlatforms } from "@/scripts/lockfile-platforms.mjs";

describe("package-lock.json", () => {
  it("lists every optional platform binary (run `node scripts/lockfile-platforms.mjs` after npm install)", () => {
    const lock = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../package-lock.json"), "utf8"));
    expect(restoreOptionalPlatforms(lock)).toEqual([]);
  });

  it("reads the platform from a binary package's name", () => {
    expect(platformOf("@next/swc-darwin-arm64")).toEqual({ os: "darwin", cpu: "arm64", libc: undefined });
    expect(platformOf("@tailwindcss/oxide-linux-x64-musl")).toEqual({ os: "linux", cpu: "x64", libc: "musl" });
    expect(platformOf("@tailwindcss/oxide-linux-arm-gnueabihf")).toEqual({ os: "linux", cpu: "arm", libc: "glibc" });
    expect(platformOf("@tailwindcss/oxide-wasm32-wasi")).toMatchObject({ cpu: "wasm32" });
  });
});
