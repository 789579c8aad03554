// Offline delegation the way deployed clients do it (../shared/INTEROP.md "Delegation caveats"): import the
// paid macaroon with the `macaroon` package, append first-party caveats (the package re-chains the
// HMAC), and write libmacaroons V2 binary again. The framing is written here because the package's
// own exportBinary() (3.0.4) throws past two caveats; the deployed SDK frames it by hand too.
// @ts-expect-error -- the macaroon package ships no type declarations.
import macaroonPackage from "macaroon";

type PackageMacaroon = {
  location: string;
  identifier: Uint8Array;
  signature: Uint8Array;
  caveats: { identifier: Uint8Array; location?: string; vid?: Uint8Array }[];
  addFirstPartyCaveat(condition: string): void;
};

/** Appends `conditions` (`name=value`) to a standard-base64 macaroon; returns standard base64. */
export function attenuate(macaroon: string, conditions: string[]): string {
  const m = macaroonPackage.importMacaroon(new Uint8Array(Buffer.from(macaroon, "base64"))) as PackageMacaroon;
  for (const condition of conditions) m.addFirstPartyCaveat(condition);
  return Buffer.from(exportBinaryV2(m)).toString("base64");
}

/** Replaces the macaroon in an `L402 <macaroon>:<preimage>` value, keeping the preimage. */
export function attenuateAuthorization(authorization: string, conditions: string[]): string {
  const [, macaroon, preimage] = /^L402 ([^:]+):([0-9a-f]{64})$/.exec(authorization)!;
  return `L402 ${attenuate(macaroon, conditions)}:${preimage}`;
}

function exportBinaryV2(m: PackageMacaroon): Uint8Array {
  const out: number[] = [2];
  const field = (type: number, data: Uint8Array) => {
    out.push(type);
    let n = data.length;
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n, ...data);
  };
  if (m.location) field(1, Buffer.from(m.location, "utf8"));
  field(2, m.identifier);
  out.push(0);
  for (const caveat of m.caveats) {
    if (caveat.location) field(1, Buffer.from(caveat.location, "utf8"));
    field(2, caveat.identifier);
    if (caveat.vid) field(4, caveat.vid);
    out.push(0);
  }
  out.push(0);
  field(6, m.signature);
  return Uint8Array.from(out);
}
