// The automated review of an external listing (spec 3.1, 4.4; issue 22 item 7): content policy,
// the endpoints (as submitted, else from the gateway's discovery documents), and for each endpoint
// up to REVIEW_ENDPOINT_CAP: a free one answers without payment; a priced one answers 402 with an
// L402/LSAT challenge whose BOLT11 invoice decodes, asks the declared price and has not expired;
// when a payer is given and the price fits the budget left, the invoice is paid and the paid retry
// must give a meaningful 2xx. Every finding is kept; any `fail` rejects. Every request goes through
// the given SSRF-pinned dispatcher (./review-http.ts), under one deadline for the whole review.
import { decode as decodeBolt11 } from "bolt11";
import type { Dispatcher } from "undici";
import { parseChallenge } from "@/lib/l402/index.ts";
import { checkContentPolicy } from "./content-policy.ts";
import { DISCOVERY_PATHS, endpointsFromGatewayDiscovery, endpointsFromOpenApi, type DiscoveredEndpoints, type ReviewEndpoint } from "./discovery-document.ts";
import { meaninglessReason } from "./meaningful-response.ts";
import { describeFetchError, reviewFetch, type ReviewRequest, type ReviewResponse } from "./review-http.ts";
import type { ListingEndpoint, ListingFinding } from "./schemas.ts";

/** Endpoints one review calls; the rest of a listing's endpoints are named in one `skip` finding. */
export const REVIEW_ENDPOINT_CAP = 10;
/** The whole review's time limit (every request, payment and stream read together). */
export const REVIEW_DEADLINE_MS = 120_000;

/** Pays a BOLT11 invoice and returns the preimage (lowercase hex): the platform wallet's send side. */
export type ReviewPayer = { pay(paymentRequest: string): Promise<{ preimage: string }> };

export type ReviewListingInput = {
  name: string;
  description: string;
  tags: string[];
  gatewayUrl: string;
  /** As submitted; empty: discover them from the gateway. */
  endpoints: ListingEndpoint[];
};

export type ReviewListingOptions = {
  listing: ReviewListingInput;
  /** The SSRF-pinned dispatcher every request goes through. */
  dispatcher: Dispatcher;
  /** null: the platform wallet cannot pay, so paid answers are not checked (a `skip` finding says so). */
  payer: ReviewPayer | null;
  /** Sats the review may spend on this listing (LISTING_REVIEW_BUDGET_SATS). */
  budgetSats: number;
  denyList: readonly string[];
  /** Wall clock for invoice expiry (ms). */
  now?: () => number;
  deadlineMs?: number;
  requestTimeoutMs?: number;
};

export type ReviewOutcome = {
  decision: "approved" | "rejected";
  summary: string;
  findings: ListingFinding[];
  /** The endpoints reviewed and listed: as submitted or as discovered. */
  endpoints: ListingEndpoint[];
};

/** The gateway URL plus an endpoint path: paths resolve under the gateway's base path (`/gw/acme` + `/v1/x`). */
export function endpointUrl(gatewayUrl: string, path: string): string {
  return `${gatewayUrl.replace(/\/+$/, "")}${path.startsWith("/") ? path : `/${path}`}`;
}

/** The request that exercises an endpoint: `{param}` and `:param` filled from the example or "probe", the example query, a JSON body for body methods. */
export function endpointRequest(gatewayUrl: string, endpoint: ReviewEndpoint): ReviewRequest {
  const example = endpoint.example ?? {};
  const fill = (name: string) => encodeURIComponent(String(example.path?.[name] ?? "probe"));
  const path = endpoint.path.replace(/\{([^}/]+)\}/g, (_, name: string) => fill(name)).replace(/\/:([A-Za-z0-9_]+)/g, (_, name: string) => `/${fill(name)}`);
  const url = new URL(endpointUrl(gatewayUrl, path));
  for (const [key, value] of Object.entries(example.query ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  const hasBody = endpoint.method !== "GET" && endpoint.method !== "DELETE";
  return {
    url: url.toString(),
    method: endpoint.method,
    ...(hasBody ? { headers: { "content-type": "application/json" }, body: JSON.stringify(example.body ?? {}) } : {}),
  };
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : (value ?? ""));
const clip = (text: string, max = 120) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Amount (whole sats, rounded up from msat) and expiry (ms) of a BOLT11 invoice, or why it does not decode. */
export function readInvoice(paymentRequest: string): { ok: true; amountSats: number | null; expiresAtMs: number } | { ok: false; message: string } {
  try {
    const decoded = decodeBolt11(paymentRequest.trim());
    const msat = decoded.millisatoshis ? Number(decoded.millisatoshis) : decoded.satoshis != null ? decoded.satoshis * 1000 : null;
    const timestamp = decoded.timestamp ?? 0;
    const expirySeconds = decoded.timeExpireDate != null ? decoded.timeExpireDate - timestamp : 3600;
    return { ok: true, amountSats: msat === null ? null : Math.ceil(msat / 1000), expiresAtMs: (timestamp + expirySeconds) * 1000 };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** Runs the review; never throws for anything the gateway does (that is a finding), only for our own failures. */
export async function reviewListing(options: ReviewListingOptions): Promise<ReviewOutcome> {
  const now = options.now ?? Date.now;
  const deadline = AbortSignal.timeout(options.deadlineMs ?? REVIEW_DEADLINE_MS);
  const http = { dispatcher: options.dispatcher, signal: deadline, requestTimeoutMs: options.requestTimeoutMs };
  const findings: ListingFinding[] = [];
  const add = (check: string, endpoint: string | null, outcome: ListingFinding["outcome"], message: string) =>
    findings.push({ check, endpoint, outcome, message });
  const { listing } = options;

  // 1. Which endpoints: as submitted, else from the discovery documents.
  let endpoints: ReviewEndpoint[] = listing.endpoints;
  if (endpoints.length === 0) {
    const discovered = await discoverEndpoints(listing.gatewayUrl, http, add);
    endpoints = discovered?.endpoints ?? [];
  }

  // 2. Content policy over everything the directory would show.
  findings.push(...checkContentPolicy({ ...listing, endpoints }, options.denyList));

  // 3. Each endpoint, up to the cap, in the listed order.
  const reviewed = endpoints.slice(0, REVIEW_ENDPOINT_CAP);
  if (endpoints.length > REVIEW_ENDPOINT_CAP) {
    add(
      "endpoints",
      null,
      "skip",
      `${endpoints.length - REVIEW_ENDPOINT_CAP} endpoints beyond the first ${REVIEW_ENDPOINT_CAP} were not called (the review's cap)`,
    );
  }
  let budgetLeft = options.budgetSats;
  let challengesVerified = 0;
  for (const endpoint of reviewed) {
    const label = `${endpoint.method} ${endpoint.path}`;
    if (deadline.aborted) {
      add("reachability", label, "fail", `not checked: the review's time limit (${(options.deadlineMs ?? REVIEW_DEADLINE_MS) / 1000} s) ran out`);
      continue;
    }
    const req = endpointRequest(listing.gatewayUrl, endpoint);
    let res: ReviewResponse;
    try {
      res = await reviewFetch(req, http);
    } catch (err) {
      const { blocked, message } = describeFetchError(err);
      add(blocked ? "address" : "reachability", label, "fail", `${req.method} ${req.url} failed: ${message}`);
      continue;
    }
    if (res.status >= 300 && res.status < 400) {
      add(
        "reachability",
        label,
        "fail",
        `answered ${res.status} (redirect to ${clip(headerText(res.headers.location))}); list the address that answers, redirects are not followed`,
      );
      continue;
    }

    if (endpoint.pricingModel === null) {
      if (res.status === 402) add("free_access", label, "fail", "declared free but answered 402 Payment Required");
      else if (res.status >= 200 && res.status < 300) add("free_access", label, "pass", `answered ${res.status} without payment`);
      else add("free_access", label, "fail", `declared free but answered ${res.status} without payment`);
      continue;
    }

    // A priced endpoint: the L402 challenge.
    if (res.status !== 402) {
      add("challenge", label, "fail", `answered ${res.status} without payment; a priced endpoint must answer 402 with an L402 challenge`);
      continue;
    }
    const wwwAuthenticate = headerText(res.headers["www-authenticate"]);
    const challenge = parseChallenge(wwwAuthenticate);
    if (!challenge) {
      add(
        "challenge",
        label,
        "fail",
        wwwAuthenticate
          ? `402 whose WWW-Authenticate is not an L402 or LSAT challenge (got "${clip(wwwAuthenticate)}")`
          : "402 without a WWW-Authenticate header",
      );
      continue;
    }
    const invoice = readInvoice(challenge.invoice);
    if (!invoice.ok) {
      add("invoice", label, "fail", `the challenge's invoice does not decode as BOLT11 (${invoice.message})`);
      continue;
    }
    const problems: string[] = [];
    if (invoice.amountSats === null) problems.push("the invoice has no amount");
    else if (invoice.amountSats !== endpoint.priceSats)
      problems.push(`the invoice asks ${invoice.amountSats} sats but the declared price is ${endpoint.priceSats} sats`);
    if (invoice.expiresAtMs <= now()) problems.push(`the invoice expired at ${new Date(invoice.expiresAtMs).toISOString()}, before it was issued to us`);
    if (problems.length) {
      for (const problem of problems) add("invoice", label, "fail", problem);
      continue;
    }
    challengesVerified++;
    add(
      "invoice",
      label,
      "pass",
      `402 with an L402 challenge; invoice for ${invoice.amountSats} sats, valid until ${new Date(invoice.expiresAtMs).toISOString()}`,
    );

    // Pay and check the paid answer, within the budget.
    if (!options.payer) {
      add("payment", label, "skip", "the platform wallet cannot pay invoices, so the paid answer was not checked");
      continue;
    }
    if (endpoint.priceSats > budgetLeft) {
      add(
        "payment",
        label,
        "skip",
        `the price (${endpoint.priceSats} sats) exceeds what the review may still spend (${budgetLeft} of ${options.budgetSats} sats), so the paid answer was not checked`,
      );
      continue;
    }
    let preimage: string;
    try {
      ({ preimage } = await options.payer.pay(challenge.invoice));
    } catch (err) {
      add("payment", label, "skip", `the platform wallet could not pay the invoice (${(err as Error).message}), so the paid answer was not checked`);
      continue;
    }
    budgetLeft -= endpoint.priceSats;
    let paid: ReviewResponse;
    try {
      paid = await reviewFetch({ ...req, headers: { ...req.headers, authorization: `L402 ${challenge.macaroon}:${preimage}` } }, http);
    } catch (err) {
      add("paid_response", label, "fail", `the paid request failed: ${describeFetchError(err).message}`);
      continue;
    }
    const reason = meaninglessReason(paid);
    if (reason) add("paid_response", label, "fail", `paid ${endpoint.priceSats} sats, then ${reason}`);
    else
      add(
        "paid_response",
        label,
        "pass",
        `paid ${endpoint.priceSats} sats; answered ${paid.status} ${paid.mediaType || "(no content type)"}${paid.firstEvent ? " and sent an event" : ""}`,
      );
  }

  // 4. What a listing needs at all: something to review, and L402 on at least one priced endpoint.
  if (endpoints.length === 0 && !findings.some((f) => ["discovery", "address", "reachability"].includes(f.check) && f.outcome === "fail")) {
    add("endpoints", null, "fail", "no endpoints to review");
  }
  if (reviewed.length > 0 && !reviewed.some((e) => e.pricingModel !== null)) {
    add("endpoints", null, "fail", "no priced endpoint: a listed gateway must ask for payment with L402 on at least one endpoint");
  } else if (reviewed.length > 0 && challengesVerified === 0 && !findings.some((f) => f.outcome === "fail")) {
    add("endpoints", null, "fail", "no priced endpoint answered with a valid L402 challenge");
  }

  const failures = findings.filter((f) => f.outcome === "fail");
  const decision = failures.length === 0 ? "approved" : "rejected";
  const paidChecks = findings.filter((f) => f.check === "paid_response" && f.outcome === "pass").length;
  const summary =
    decision === "approved"
      ? `Approved: ${reviewed.length} endpoint${reviewed.length === 1 ? "" : "s"} checked, ${challengesVerified} L402 challenge${challengesVerified === 1 ? "" : "s"} verified, ${paidChecks} paid answer${paidChecks === 1 ? "" : "s"} verified.`
      : `Rejected: ${failures.length} problem${failures.length === 1 ? "" : "s"}; first: ${failures[0].endpoint ? `${failures[0].endpoint}: ` : ""}${failures[0].message}`;
  return { decision, summary: clip(summary, 500), findings, endpoints: endpoints.map(({ example: _example, ...e }) => e) };
}

/** Fetches the discovery documents in order until one lists endpoints; adds the findings that say what happened. */
async function discoverEndpoints(
  gatewayUrl: string,
  http: { dispatcher: Dispatcher; signal: AbortSignal; requestTimeoutMs?: number },
  add: (check: string, endpoint: string | null, outcome: ListingFinding["outcome"], message: string) => void,
): Promise<DiscoveredEndpoints | null> {
  const tried: string[] = [];
  for (const path of DISCOVERY_PATHS) {
    const url = endpointUrl(gatewayUrl, path);
    let res: ReviewResponse;
    try {
      res = await reviewFetch({ url, method: "GET", headers: { accept: "application/json" } }, http);
    } catch (err) {
      const { blocked, message } = describeFetchError(err);
      // The host itself is refused or down: every other document would fail the same way.
      add(blocked ? "address" : "reachability", null, "fail", `GET ${url} failed: ${message}`);
      return null;
    }
    let doc: unknown = null;
    if (res.status === 200 && !res.truncated) {
      try {
        doc = JSON.parse(res.body.toString("utf8"));
      } catch {
        doc = null;
      }
    }
    const found = path.endsWith("l402-gateway.json") ? endpointsFromGatewayDiscovery(doc) : endpointsFromOpenApi(doc);
    if (found && found.endpoints.length > 0) {
      add("discovery", null, "pass", `${found.endpoints.length} endpoint${found.endpoints.length === 1 ? "" : "s"} read from ${url}`);
      if (found.invalid)
        add(
          "discovery",
          null,
          "skip",
          `${found.invalid} endpoint entries of ${url} were not usable (missing or invalid method, path or pricing) and were left out`,
        );
      return found;
    }
    tried.push(`${path} (${res.status === 200 ? (doc ? "no usable endpoints" : "not JSON") : `answered ${res.status}`})`);
  }
  add(
    "discovery",
    null,
    "fail",
    `no endpoints were submitted and none could be discovered: ${tried.join("; ")}. Submit them, or serve /.well-known/l402-gateway.json or an OpenAPI document with x-l402-pricing`,
  );
  return null;
}
