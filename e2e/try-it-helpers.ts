// What the API-page specs share: an injected WebLN provider paying through the dev node, the
// payments it made, waiting for a hosted example's endpoints to be listed, and opening try-it.
import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";

/** A WebLN provider like a browser extension's, paying through the dev node's pay API (`reject`: the user declines). */
export async function injectWebln(page: Page, options: { reject?: boolean } = {}) {
  await page.addInitScript(({ reject }) => {
    const w = window as unknown as { webln: unknown; __payments: string[] };
    w.__payments = [];
    w.webln = {
      enable: async () => {},
      sendPayment: async (invoice: string) => {
        if (reject) throw new Error("User rejected the payment");
        const res = await fetch("/api/dev/lightning/pay", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ invoice }),
        });
        const body = await res.json();
        if (!res.ok) throw new Error(body.error?.message ?? "payment failed");
        w.__payments.push(invoice);
        return { preimage: body.preimage };
      },
    };
  }, options);
}

/** How many invoices the injected provider has paid. */
export const payments = (page: Page) => page.evaluate(() => (window as unknown as { __payments: string[] }).__payments.length);

/** Waits until the API page of `slug` lists the endpoint (the origin has started and its endpoints were imported). */
export async function waitForEndpoint(request: APIRequestContext, slug: string, path: string) {
  await expect
    .poll(
      async () => {
        const res = await request.get(`/directory/${slug}`);
        return res.ok() && (await res.text()).includes(path);
      },
      { timeout: 240_000, intervals: [2_000, 5_000] },
    )
    .toBe(true);
}

/** Opens the API page of `slug` and the try-it panel of the endpoint with this path; returns its card. */
export async function openTryItByPath(page: Page, slug: string, path: string): Promise<Locator> {
  await page.goto(`/directory/${slug}`);
  const card = page.locator("article", { has: page.locator("header code", { hasText: new RegExp(`^${path.replace(/[/]/g, "\\/")}$`) }) });
  await card.getByRole("button", { name: /^Try it/ }).click();
  return card;
}
