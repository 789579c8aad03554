// Restores package-lock.json entries for other platforms' optional binaries (@next/swc-darwin-*,
// @tailwindcss/oxide-win32-*, ...). This machine's registry serves only the linux builds, so
// `npm install` here drops the rest from the lock and `npm ci` then refuses the lock as out of sync.
// Run after every `npm install`: `node scripts/lockfile-platforms.mjs` (tests/db/lockfile.test.ts checks).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const lockPath = fileURLToPath(new URL("../package-lock.json", import.meta.url));

/** Reads os/cpu/libc from a platform package name such as `oxide-linux-arm64-musl`. */
export function platformOf(name) {
  const os = ["android", "darwin", "freebsd", "linux", "win32", "openbsd", "sunos", "aix"].find((o) => name.includes(`-${o}-`));
  const cpu = name.includes("wasm32")
    ? "wasm32"
    : (["arm64", "x64", "ia32", "ppc64", "s390x", "riscv64"].find((c) => name.includes(`-${c}`)) ?? (name.includes("-arm-") ? "arm" : undefined));
  const libc = name.endsWith("-musl") ? "musl" : name.includes("-gnu") ? "glibc" : undefined;
  return { os, cpu, libc };
}

/** Adds the missing optional platform entries; returns their names. */
export function restoreOptionalPlatforms(lock) {
  const added = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const key = `node_modules/${dep}`;
      const nested = `${path}/node_modules/${dep}`;
      if (lock.packages[key] || lock.packages[nested]) continue;
      const { os, cpu, libc } = platformOf(dep);
      if (!os && cpu !== "wasm32") continue; // not a platform binary: leave it to npm
      lock.packages[key] = {
        version,
        ...(cpu ? { cpu: [cpu] } : {}),
        ...(entry.dev ? { dev: true } : {}),
        ...(libc ? { libc: [libc] } : {}),
        optional: true,
        ...(os ? { os: [os] } : {}),
      };
      added.push(`${dep}@${version}`);
    }
  }
  return added;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lock = JSON.parse(readFileSync(lockPath, "utf8"));
  const added = restoreOptionalPlatforms(lock);
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(added.length ? `restored ${added.length} platform entries: ${added.join(", ")}` : "package-lock.json already lists every platform binary");
}
