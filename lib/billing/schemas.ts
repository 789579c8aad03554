// Billing's request and response schemas: the operator's clock route and the provider's billing views.
import { z } from "zod";

/** POST /api/admin/billing/run: the instant every due transition is run at. */
export const billingRunSchema = z.strictObject({
  now: z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp with its zone (Z or ±hh:mm)" }).transform((s) => new Date(s)),
});
export type BillingRun = z.output<typeof billingRunSchema>;

/** What the run did (transitions this call made). */
export const billingRunResultSchema = z.object({
  now: z.string(),
  closed: z.int(),
  invoiced: z.int(),
  paid: z.int(),
  suspended: z.int(),
  reactivated: z.int(),
});
