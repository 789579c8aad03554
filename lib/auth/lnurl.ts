// LNURL encoding (LUD-01): a URL as bech32 with the human-readable part "lnurl", upper-cased so QR
// codes use their compact alphanumeric mode. Pure; bech32 (BIP-173) without the 90-character limit,
// since LNURLs are longer than segwit addresses.

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const value of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATORS[i];
  }
  return chk;
}

function expandHrp(hrp: string): number[] {
  const codes = [...hrp].map((c) => c.charCodeAt(0));
  return [...codes.map((c) => c >>> 5), 0, ...codes.map((c) => c & 31)];
}

/** Regroups 8-bit bytes into 5-bit words (padding the last one with zero bits). */
function toWords(bytes: Uint8Array): number[] {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  return words;
}

/** bech32 of `data` under `hrp` (lowercase). */
export function bech32Encode(hrp: string, data: Uint8Array): string {
  const words = toWords(data);
  const mod = polymod([...expandHrp(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => CHARSET[w]).join("")}`;
}

/** The LNURL of a URL: `LNURL1…` (LUD-01). */
export function encodeLnurl(url: string): string {
  return bech32Encode("lnurl", new TextEncoder().encode(url)).toUpperCase();
}
