// Shared steps of the dashboard browser tests: unique names per run, magic-link sign-in through the
// dev mailbox, and creating a workspace through the form.
import { expect, type Page } from "@playwright/test";

/** Unique per test and project, so parallel runs never share an address or slug. */
export function unique(testInfo: { project: { name: string }; workerIndex: number }): string {
  return `${testInfo.project.name}-${testInfo.workerIndex}-${Date.now().toString(36)}`;
}

/** Signs in by e-mail: asks for a link, opens it from the dev mailbox. */
export async function signInByEmail(page: Page, email: string, callbackUrl = "/dashboard") {
  await page.goto(`/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
  await page.getByLabel("E-mail address").fill(email);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
  await page.getByRole("link", { name: "dev mailbox" }).click();
  await expect(page.getByRole("heading", { name: "Dev mailbox" })).toBeVisible();
  await page
    .getByRole("article", { name: `E-mail to ${email}` })
    .first()
    .getByRole("link", { name: "Open the sign-in link" })
    .click();
}

/**
 * Types a slug into the create-workspace form until its live check answers with `answer`. The
 * answer proves the form is hydrated: a value typed before hydration is reset to the initial empty
 * state, so a lost fill is typed again. A form that ignored a fill is loaded again first: CI once
 * saw the form right after the magic-link sign-in ignore every input for 20 s while the router was
 * live (prefetches ran); the cause is not found yet (see the closing note of 2026-11-22).
 */
export async function fillSlugUntilChecked(page: Page, slug: string, answer: string) {
  let attempt = 0;
  await expect(async () => {
    if (attempt++ > 0) {
      await page.reload();
      await page.waitForLoadState("networkidle");
    }
    await page.getByLabel("Slug").fill(slug);
    await expect(page.getByText(answer, { exact: true })).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 40_000 });
}

/** Creates a workspace from /dashboard (a signed-in user without one) and waits for its overview. */
export async function createWorkspace(page: Page, name: string, slug: string) {
  await expect(page).toHaveURL("/dashboard");
  // Slug first: once it is checked the form is hydrated, and an edited slug is no longer derived
  // from the name.
  await fillSlugUntilChecked(page, slug, "Available");
  await page.getByLabel("Name").fill(name);
  await expect(page.getByLabel("Name")).toHaveValue(name);
  await expect(page.getByLabel("Slug")).toHaveValue(slug);
  await page.getByRole("button", { name: "Create workspace" }).click();
  // The first write of a cold server (Prisma connecting, pages compiling) can take a while on a loaded machine.
  await expect(page).toHaveURL(`/dashboard/${slug}`, { timeout: 20_000 });
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
}

/** A valid slug (at most 63 characters, no trailing dash) from a prefix and a unique id. */
export function slugFor(prefix: string, id: string): string {
  return `${prefix}-${id}`.slice(0, 63).replace(/-+$/, "");
}
