// The dashboard's sections: ONE list drives the side navigation and the overview checklist's links.
// Add a page under app/dashboard/[slug]/<segment>/ and its entry here; nothing else changes.

export type DashboardSection = {
  id: string;
  label: string;
  /** Path below /dashboard/<slug> ("" for the overview). */
  segment: string;
};

export const dashboardSections: readonly DashboardSection[] = [
  { id: "overview", label: "Overview", segment: "" },
  { id: "origin", label: "Origin & secrets", segment: "origin" },
  { id: "wallet", label: "Wallet", segment: "wallet" },
  { id: "endpoints", label: "Endpoints", segment: "endpoints" },
  { id: "analytics", label: "Analytics", segment: "analytics" },
  { id: "webhooks", label: "Webhooks", segment: "webhooks" },
  { id: "api-keys", label: "API keys", segment: "api-keys" },
  { id: "billing", label: "Billing", segment: "billing" },
  { id: "settings", label: "Settings & members", segment: "settings" },
];

/** The href of a section in a workspace, or null when no such page exists (yet). */
export function sectionHref(slug: string, id: string): string | null {
  const section = dashboardSections.find((s) => s.id === id);
  if (!section) return null;
  return section.segment ? `/dashboard/${slug}/${section.segment}` : `/dashboard/${slug}`;
}
