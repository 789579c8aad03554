// The provider dashboard against the real server: signed-out redirect, magic-link sign-in through
// the dev mailbox, creating a workspace with the live slug check, setting the origin (the demo
// origin the server itself serves) and testing it, rotating the secrets, member invitations, and
// "Sign in with Lightning" with the dev wallet.
import { expect, test } from "@playwright/test";
import { createWorkspace, fillSlugUntilChecked, signInByEmail, unique } from "./dashboard-helpers.ts";

test("signed-out visits to the dashboard go to sign-in and come back after it", async ({ page }, testInfo) => {
  await page.goto("/dashboard/some-workspace/origin");
  await expect(page).toHaveURL("/signin?callbackUrl=%2Fdashboard%2Fsome-workspace%2Forigin");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  // After signing in the user lands where they were going (a workspace they do not have: 404).
  const email = `redirect-${unique(testInfo)}@example.com`;
  await signInByEmail(page, email, "/dashboard/some-workspace/origin");
  await expect(page).toHaveURL("/dashboard/some-workspace/origin");
  await expect(page.getByRole("heading", { level: 1, name: "This page does not exist" })).toBeVisible();
});

test("sign in by e-mail, create a workspace, set and test the origin, rotate the secrets", async ({ page }, testInfo) => {
  const id = unique(testInfo);
  const email = `provider-${id}@example.com`;
  await signInByEmail(page, email);
  await expect(page).toHaveURL("/dashboard");
  await expect(page.getByText(`Signed in as ${email}`)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Create your first workspace" })).toBeVisible();

  // The slug is checked live: the demo's slug is taken, a reserved word is refused. The first answer
  // also proves the form is hydrated, so the name is typed after it (see fillSlugUntilChecked).
  await fillSlugUntilChecked(page, "demo", "This slug is already taken");
  await page.getByLabel("Slug").fill("dashboard");
  await expect(page.getByText("This slug is reserved; choose another slug")).toBeVisible();
  const slug = `wx-${id}`.slice(0, 63).replace(/-+$/, "");
  await page.getByLabel("Slug").fill(slug);
  await expect(page.getByText("Available", { exact: true })).toBeVisible();
  await page.getByLabel("Name").fill("Weather");
  await expect(page.getByLabel("Name")).toHaveValue("Weather");
  await expect(page.getByLabel("Slug")).toHaveValue(slug);
  await page.getByLabel("Description").fill("Forecasts by the minute.");
  await page.getByLabel("Tags").fill("weather, forecasts");
  await page.getByRole("button", { name: "Create workspace" }).click();

  // The first write of a cold server can take a while (see createWorkspace).
  await expect(page).toHaveURL(`/dashboard/${slug}`, { timeout: 20_000 });
  await expect(page.getByRole("heading", { level: 1, name: "Weather" })).toBeVisible();
  const checklist = page.getByRole("region", { name: "Get started" });
  await expect(checklist).toContainText("0 of 4 done");
  await checklist.getByRole("link", { name: "Set your origin" }).click();

  await expect(page).toHaveURL(`/dashboard/${slug}/origin`);
  await expect(page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Origin & secrets" })).toHaveAttribute("aria-current", "page");
  // An invalid URL is refused by the API and shown on the field.
  await page.getByLabel("Origin URL").fill("ftp://example.com");
  await page.getByRole("button", { name: "Save origin" }).click();
  await expect(page.getByText("must be an http(s) URL")).toBeVisible();
  await page.getByLabel("Origin URL").fill("http://127.0.0.1:3100/api/demo");
  await page.getByRole("button", { name: "Save origin" }).click();
  await expect(page.getByText("Origin saved")).toBeVisible();
  await page.getByRole("button", { name: "Test connection" }).click();
  const result = page.getByRole("status", { name: "Connection test result" });
  await expect(result).toContainText("Reachable");
  await expect(result).toContainText(/HTTP \d{3} · \d+ ms/);

  // Secrets: copyable, snippets in three languages, rotation with the grace period.
  const secrets = page.getByRole("region", { name: "Secrets" });
  const before = await secrets.locator("figure").first().locator("code").textContent();
  await expect(secrets.getByRole("button", { name: "Copy HMAC secret" })).toBeVisible();
  await secrets.getByRole("tab", { name: "Python" }).click();
  await expect(secrets.getByRole("tabpanel")).toContainText("def from_gateway(");
  // Arrow keys move between tabs (roving focus: only the selected tab is in the tab order).
  await secrets.getByRole("tab", { name: "Python" }).press("ArrowLeft");
  await expect(secrets.getByRole("tab", { name: "Next.js" })).toHaveAttribute("aria-selected", "true");
  await expect(secrets.getByRole("tab", { name: "Next.js" })).toBeFocused();
  await secrets.getByRole("tab", { name: "Next.js" }).press("ArrowLeft");
  await expect(secrets.getByRole("tab", { name: "Node / Express" })).toHaveAttribute("aria-selected", "true");
  await expect(secrets.getByRole("tabpanel")).toContainText("gatewayGuard({ secrets })");
  await secrets.getByRole("button", { name: "Rotate secrets" }).click();
  await secrets.getByRole("button", { name: "Yes, rotate secrets" }).click();
  const note = secrets.getByRole("note", { name: "Previous secrets" });
  await expect(note).toContainText("Previous secrets stay valid until");
  await expect(note).toContainText(before!.trim());
  await expect(secrets.locator("figure").first().locator("code")).not.toHaveText(before!);
  await expect(secrets.getByRole("tabpanel")).toContainText("PREVIOUS_HMAC_SECRET");

  // The overview now shows the origin step done and the wallet as the next step.
  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Overview" }).click();
  await expect(checklist).toContainText("1 of 4 done");
  await expect(checklist.getByRole("listitem", { name: "Set your origin: done" })).toBeVisible();
});

test("owners invite members by e-mail; the invitation becomes a membership at first sign-in", async ({ page, browser }, testInfo) => {
  // Two e-mail sign-ins in two browser contexts: 29-34 s on a slow 2-core CI machine.
  test.setTimeout(90_000);
  const id = unique(testInfo);
  await signInByEmail(page, `owner-${id}@example.com`);
  const slug = `team-${id}`.slice(0, 63).replace(/-+$/, "");
  await createWorkspace(page, "Team API", slug);
  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Settings & members" }).click();

  const members = page.getByRole("region", { name: "Members" });
  const invitee = `invitee-${id}@example.com`;
  await members.getByLabel("E-mail").fill("not-an-address");
  await members.getByRole("button", { name: "Invite" }).click();
  await expect(members.getByText("must be an e-mail address")).toBeVisible();
  await members.getByLabel("E-mail").fill(invitee);
  await members.getByRole("button", { name: "Invite" }).click();
  await expect(members.getByRole("list", { name: "Pending invitations" })).toContainText(invitee);
  // The last owner cannot demote themself: the optimistic change rolls back with an error toast.
  await members.getByLabel(`Role of owner-${id}@example.com`).selectOption("member");
  await expect(page.getByRole("alert").filter({ hasText: "at least one owner" })).toBeVisible();
  await expect(members.getByLabel(`Role of owner-${id}@example.com`)).toHaveValue("owner");

  // The invitee signs in for the first time (own browser context) and finds the workspace.
  const other = await browser.newContext();
  const inviteePage = await other.newPage();
  await signInByEmail(inviteePage, invitee);
  await expect(inviteePage).toHaveURL(`/dashboard/${slug}`);
  await expect(inviteePage.getByText("you are a member")).toBeVisible();
  // Members do not see the secrets.
  await inviteePage.goto(`/dashboard/${slug}/origin`);
  await expect(inviteePage.getByText("Only workspace owners can see and rotate the origin secrets.")).toBeVisible();
  await other.close();

  await page.reload();
  await expect(members.getByRole("list", { name: "Members" })).toContainText(invitee);
});

test("sign in with Lightning through the dev wallet, then sign out", async ({ page }) => {
  await page.goto("/signin?callbackUrl=%2Fdashboard");
  const lightning = page.getByRole("region", { name: "Sign in with Lightning" });
  await expect(lightning.getByRole("img", { name: "LNURL-auth QR code" })).toBeVisible();
  await lightning.getByText("Show the LNURL").click();
  await expect(lightning.getByText(/^LNURL1[0-9A-Z]+$/)).toBeVisible();
  await lightning.getByRole("button", { name: "Sign in with the dev wallet" }).click();
  await expect(page).toHaveURL(/\/dashboard(\/|$)/);
  await expect(page.getByText(/Signed in as Lightning [0-9a-f]{8}…[0-9a-f]{4}/)).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL("/");
  await page.goto("/dashboard");
  await expect(page).toHaveURL("/signin?callbackUrl=%2Fdashboard");
});
