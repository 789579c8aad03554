// Origin-protection secrets of a tenant (spec 5.4): a static gateway secret and an HMAC key,
// encrypted at rest, rotated with a grace period during which the previous pair stays valid.
import { randomBytes } from "node:crypto";
import { openSecret, sealSecret } from "@/lib/crypto/secret-box.ts";
import type { OriginSecretPair } from "@/lib/origin/origin-call.ts";

export type TenantSecretColumns = {
  gatewaySecretEnc: string;
  hmacSecretEnc: string;
  previousGatewaySecretEnc: string | null;
  previousHmacSecretEnc: string | null;
  previousSecretsValidUntil: Date | null;
};

/** The Tenant columns readOriginSecrets needs, as a Prisma `select`. */
export const tenantSecretColumnsSelect = {
  gatewaySecretEnc: true,
  hmacSecretEnc: true,
  previousGatewaySecretEnc: true,
  previousHmacSecretEnc: true,
  previousSecretsValidUntil: true,
} as const satisfies Record<keyof TenantSecretColumns, true>;

export type OriginSecrets = OriginSecretPair & {
  previous?: OriginSecretPair & { validUntil: Date };
};

/** Fresh random secrets, already sealed for storage. */
export function newSealedSecretPair(appSecret: string): Pick<TenantSecretColumns, "gatewaySecretEnc" | "hmacSecretEnc"> {
  return {
    gatewaySecretEnc: sealSecret(appSecret, `gws_${randomBytes(24).toString("hex")}`),
    hmacSecretEnc: sealSecret(appSecret, `hmac_${randomBytes(32).toString("hex")}`),
  };
}

/** Decrypts a tenant's secrets; the previous pair is included only while its grace period lasts. */
export function readOriginSecrets(appSecret: string, row: TenantSecretColumns, now = new Date()): OriginSecrets {
  const secrets: OriginSecrets = {
    gatewaySecret: openSecret(appSecret, row.gatewaySecretEnc),
    hmacSecret: openSecret(appSecret, row.hmacSecretEnc),
  };
  if (row.previousGatewaySecretEnc && row.previousHmacSecretEnc && row.previousSecretsValidUntil && row.previousSecretsValidUntil > now) {
    secrets.previous = {
      gatewaySecret: openSecret(appSecret, row.previousGatewaySecretEnc),
      hmacSecret: openSecret(appSecret, row.previousHmacSecretEnc),
      validUntil: row.previousSecretsValidUntil,
    };
  }
  return secrets;
}

/** Column values for a rotation: current becomes previous until now + grace, new pair generated. */
export function rotatedSecretColumns(
  appSecret: string,
  row: Pick<TenantSecretColumns, "gatewaySecretEnc" | "hmacSecretEnc">,
  graceHours: number,
  now = new Date(),
): TenantSecretColumns {
  return {
    ...newSealedSecretPair(appSecret),
    previousGatewaySecretEnc: row.gatewaySecretEnc,
    previousHmacSecretEnc: row.hmacSecretEnc,
    previousSecretsValidUntil: new Date(now.getTime() + graceHours * 3_600_000),
  };
}
