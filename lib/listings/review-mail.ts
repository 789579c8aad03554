// The review's result e-mail to the listing's contact address (pure): the decision, its summary,
// every finding (failures first) and the status URL.
import { escapeHtml, type MailContent } from "@/lib/mail/deliver-mail.ts";
import type { ListingFinding } from "./schemas.ts";

export type ListingReviewMailInput = {
  slug: string;
  name: string;
  gatewayUrl: string;
  statusUrl: string;
  status: string;
  summary: string;
  findings: ListingFinding[];
};

const OUTCOME_LABEL = { fail: "FAIL", pass: "ok", skip: "not checked" } as const;
const ORDER = { fail: 0, skip: 1, pass: 2 } as const;

/** Subject, text and HTML of the result mail. */
export function listingReviewMail(input: ListingReviewMailInput): MailContent {
  const approved = input.status === "approved";
  // A header line: whatever the submitter typed, no line breaks or other control characters.
  const name = input.name.replace(/\p{Cc}+/gu, " ");
  const subject = approved ? `Your L402 Hub listing "${name}" (${input.slug}) is approved` : `Your L402 Hub listing "${name}" (${input.slug}) was not approved`;
  const findings = [...input.findings].sort((a, b) => ORDER[a.outcome] - ORDER[b.outcome]);
  const line = (f: ListingFinding) => `[${OUTCOME_LABEL[f.outcome]}] ${f.endpoint ? `${f.endpoint} · ` : ""}${f.check}: ${f.message}`;
  const next = approved
    ? "It now appears in the directory beside the hosted APIs. The platform keeps checking that the gateway answers; a gateway unreachable for long is suspended until it recovers."
    : "Fix what the FAIL lines name. A slug stays with its listing, so submit the corrected gateway under a new slug (or ask the operator to remove this one).";
  const text = [
    `The automated review of "${input.name}" (${input.slug}, ${input.gatewayUrl}) has decided: ${approved ? "approved" : "rejected"}.`,
    "",
    input.summary,
    "",
    "Findings:",
    ...findings.map((f) => `- ${line(f)}`),
    "",
    next,
    "",
    `Status: ${input.statusUrl}`,
    "",
  ].join("\n");
  const html = [
    `<p>The automated review of <strong>${escapeHtml(input.name)}</strong> (${escapeHtml(input.slug)}, ${escapeHtml(input.gatewayUrl)}) has decided: <strong>${approved ? "approved" : "rejected"}</strong>.</p>`,
    `<p>${escapeHtml(input.summary)}</p>`,
    `<ul>${findings.map((f) => `<li>${escapeHtml(line(f))}</li>`).join("")}</ul>`,
    `<p>${escapeHtml(next)}</p>`,
    `<p><a href="${escapeHtml(input.statusUrl)}">Listing status</a></p>`,
  ].join("");
  return { subject, text, html, url: input.statusUrl };
}
