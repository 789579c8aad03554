// DER encoding of ECDSA signatures (what LNURL-auth wallets send, LUD-04), to and from the 64-byte
// compact form @noble/secp256k1 works with. Strict: minimal integer encodings, exact lengths.

/** Parses `30 len 02 rlen r 02 slen s` into 64 bytes (r ‖ s), or null when not strict DER. */
export function derToCompact(der: Uint8Array): Uint8Array | null {
  if (der.length < 8 || der.length > 72 || der[0] !== 0x30 || der[1] !== der.length - 2) return null;
  const out = new Uint8Array(64);
  let offset = 2;
  for (let part = 0; part < 2; part++) {
    if (der[offset] !== 0x02) return null;
    const len = der[offset + 1];
    const start = offset + 2;
    if (len === undefined || len < 1 || len > 33 || start + len > der.length) return null;
    const value = der.subarray(start, start + len);
    // Negative numbers and non-minimal encodings (a leading zero not needed for the sign) are refused.
    if (value[0] & 0x80) return null;
    if (len > 1 && value[0] === 0 && !(value[1] & 0x80)) return null;
    const digits = value[0] === 0 ? value.subarray(1) : value;
    if (digits.length > 32) return null;
    out.set(digits, part * 32 + (32 - digits.length));
    offset = start + len;
  }
  return offset === der.length ? out : null;
}

function derInteger(bytes: Uint8Array): number[] {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const digits = [...bytes.subarray(i)];
  if (digits[0] & 0x80) digits.unshift(0);
  return [0x02, digits.length, ...digits];
}

/** Encodes 64 bytes (r ‖ s) as DER. */
export function compactToDer(compact: Uint8Array): Uint8Array {
  const body = [...derInteger(compact.subarray(0, 32)), ...derInteger(compact.subarray(32, 64))];
  return Uint8Array.from([0x30, body.length, ...body]);
}
