// The 402 being paid, as try-it holds it and the invoice panel shows it: a file of its own so the
// panel need not import the component that renders it.

/** A 402 being paid. */
export type Challenge = { macaroon: string; invoice: string; amountSats: number | null; paymentHash: string | null; creditSats: number | null };
