// The 402 challenge (spec 2.1, ../shared/INTEROP.md): an invoice from the tenant's own wallet for exactly
// the price, a macaroon bound to tenant, scope, amount and expiry, both WWW-Authenticate lines.
import { challengeHeaderValues } from "@l402-hub/sdk/client/l402-headers";
import { mintL402Macaroon, type L402Scope } from "@/lib/l402/macaroon.ts";
import type { WalletBackend } from "@/lib/lightning/types.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { PricingQuote } from "@/lib/pricing/quote.ts";
import { challengeBody, type ChallengeBody } from "./challenge-body.ts";

export type { ChallengeBody } from "./challenge-body.ts";

export type Challenge = { wwwAuthenticate: [string, string]; body: ChallengeBody; paymentHash: string };

export type IssueChallengeOptions = {
  prisma: PrismaClient;
  wallet: WalletBackend;
  appSecret: string;
  tenantId: string;
  endpointId: string | null;
  scope: L402Scope;
  quote: PricingQuote;
  description: string;
  invoiceExpirySeconds: number;
  /** How long a paid token stays usable (per_request proofs; sessions set their own expiry). */
  tokenValiditySeconds: number;
  now?: Date;
};

/** Creates the invoice (throws WalletError when the wallet cannot), records it, mints the token. */
export async function issueChallenge(options: IssueChallengeOptions): Promise<Challenge> {
  const now = options.now ?? new Date();
  const { quote } = options;
  const invoice = await options.wallet.createInvoice({
    amountSats: quote.amountSats,
    description: options.description,
    expirySeconds: options.invoiceExpirySeconds,
  });
  await options.prisma.invoice.create({
    data: {
      tenantId: options.tenantId,
      endpointId: options.endpointId,
      paymentHash: invoice.paymentHash,
      paymentRequest: invoice.paymentRequest,
      amountSats: quote.amountSats,
      purpose: quote.purpose,
      pricing: quote.bodyFields,
      expiresAt: invoice.expiresAt,
    },
  });
  const { macaroon } = mintL402Macaroon({
    appSecret: options.appSecret,
    paymentHash: invoice.paymentHash,
    tenantId: options.tenantId,
    scope: options.scope,
    amountSats: quote.amountSats,
    validUntil: new Date(now.getTime() + options.tokenValiditySeconds * 1000),
  });
  return {
    paymentHash: invoice.paymentHash,
    wwwAuthenticate: challengeHeaderValues(macaroon, invoice.paymentRequest),
    body: challengeBody(quote, invoice),
  };
}
