// Billing's request and response schemas: the operator's clock route and the provider's billing views.
import { z } from "zod";
import { AppError } from "@/lib/errors/index.ts";

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

const isoDate = z.date().transform((d) => d.toISOString());

/** GET /api/tenants/:tenantId/billing: where the workspace stands. */
export const billingResponseSchema = z.object({
  status: z.enum(["free", "trial", "active", "suspended"]),
  trialEndsAt: isoDate.nullable(),
  currentCycle: z
    .object({
      startsAt: isoDate,
      endsAt: isoDate,
      requests: z.int(),
      earningsSats: z.int(),
      projectedFeeSats: z.int(),
    })
    .nullable(),
  outstandingInvoice: z.object({ amountSats: z.int(), paymentRequest: z.string(), dueAt: isoDate }).nullable(),
});
export type BillingView = z.input<typeof billingResponseSchema>;

/** The largest page of cycles, and the default. */
export const CYCLES_MAX_LIMIT = 100;
export const CYCLES_DEFAULT_LIMIT = 50;

/** GET …/billing/cycles?limit&before: limit 1-100 (default 50); `before` is the previous page's `nextCursor`. */
export const cyclesQuerySchema = z.object({
  before: z.iso.datetime({ offset: true, message: "must be the nextCursor of the previous page" }).optional(),
  limit: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return CYCLES_DEFAULT_LIMIT;
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(n) || n < 1 || n > CYCLES_MAX_LIMIT) {
        ctx.addIssue({ code: "custom", message: `must be an integer from 1 to ${CYCLES_MAX_LIMIT}` });
        return z.NEVER;
      }
      return n;
    }),
});
export type CyclesQuery = z.output<typeof cyclesQuerySchema>;

/** Parses the cycles query; a bad parameter is a 400 naming it. */
export function parseCyclesQuery(searchParams: URLSearchParams): CyclesQuery {
  const parsed = cyclesQuerySchema.safeParse({ limit: searchParams.get("limit") ?? undefined, before: searchParams.get("before") ?? undefined });
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({ field: issue.path.join(".") || "limit", message: issue.message }));
  throw new AppError("bad_request", `Invalid query: ${fields.map((f) => `${f.field}: ${f.message}`).join("; ")}`, { fields });
}

/** One cycle as its workspace sees it; the cycle under way is `open` with its figures so far. */
export const cycleResponseSchema = z.object({
  startsAt: isoDate,
  endsAt: isoDate,
  requests: z.int(),
  earningsSats: z.int(),
  baseFeeSats: z.int(),
  usageFeeSats: z.int(),
  amountSats: z.int(),
  status: z.enum(["open", "invoiced", "paid", "no_charge", "canceled"]),
  paymentRequest: z.string().nullable(),
});
export type CycleView = z.input<typeof cycleResponseSchema>;

/** GET …/billing/cycles: newest first; `nextCursor` is null on the last page. */
export const cycleListResponseSchema = z.object({ cycles: z.array(cycleResponseSchema), nextCursor: z.string().nullable() });

/** POST …/billing/check: payments this check recorded, whether it lifted a suspension, and the billing view after it. */
export const billingCheckResponseSchema = z.object({ paid: z.int(), reactivated: z.boolean(), billing: billingResponseSchema });
export type BillingCheck = z.input<typeof billingCheckResponseSchema>;
