// GET /api/external-listings/:slug/status (spec 2.5): slug, name, status and createdAt, plus, once
// the review decided, when, its summary and every finding.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { listingFindingSchema, type ListingStatusView } from "./schemas.ts";

/** The columns the status view reads. */
export type ListingStatusRow = {
  slug: string;
  name: string;
  status: ListingStatusView["status"];
  createdAt: Date;
  reviewedAt: Date | null;
  reviewNotes: string | null;
  findings: unknown;
};

/** The status view of a row (pure). Findings that do not parse are left out rather than shown wrong. */
export function toListingStatusView(row: ListingStatusRow): ListingStatusView {
  const view: ListingStatusView = { slug: row.slug, name: row.name, status: row.status, createdAt: row.createdAt.toISOString() };
  if (!row.reviewedAt) return view;
  const findings = Array.isArray(row.findings)
    ? row.findings.flatMap((f) => {
        const finding = listingFindingSchema.safeParse(f).data;
        return finding ? [{ ...finding, ok: finding.outcome !== "fail" }] : [];
      })
    : [];
  return { ...view, reviewedAt: row.reviewedAt.toISOString(), summary: row.reviewNotes ?? "", findings };
}

/** The status view of one listing by slug (case-insensitive); 404 when there is none. */
export async function getListingStatus({ prisma, slug }: { prisma: PrismaClient; slug: string }): Promise<ListingStatusView> {
  const row = await prisma.externalListing.findUnique({
    where: { slug: slug.toLowerCase() },
    select: { slug: true, name: true, status: true, createdAt: true, reviewedAt: true, reviewNotes: true, findings: true },
  });
  if (!row) throw new AppError("not_found", `No external listing with slug "${slug}"`);
  return toListingStatusView(row);
}
