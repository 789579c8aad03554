// POST /api/dev/lightning/pay: pay a dev-node invoice and get its preimage (404 when the dev node is off).
import { withErrors } from "@/lib/api/handler.ts";
import { payDevInvoice } from "@/lib/dev-wallet/pay-invoice.ts";
import { devPaymentResponseSchema, devPaySchema } from "@/lib/dev-wallet/schemas.ts";

export const POST = withErrors(
  async ({ ctx, body }) => {
    const payment = await payDevInvoice({ devNode: ctx.devNode, invoice: body.invoice });
    return Response.json(devPaymentResponseSchema.parse(payment));
  },
  { body: devPaySchema },
);
