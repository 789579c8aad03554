"use client";
// The "List your L402 API" form: the spec 2.5 body with the bounds as hints, checked in the
// browser and again by the API, whose 422 field errors land beside the same inputs; then the live
// status of the listing, polled until the review decides, with its findings. The wire shapes are
// in ./listing-contract.ts.
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { Field } from "@/app/dashboard/_components/field.tsx";
import {
  checkListingForm,
  endpointMethods,
  fieldErrorsOf,
  isDecided,
  listingBounds,
  listingPricingModels,
  listingRoutes,
  submissionOf,
  type EndpointRowInput,
  type ListingFormInput,
  type ListingStatusView,
} from "./listing-contract.ts";

/** How often the status is read while the review runs. */
const pollMs = 3_000;

const emptyForm: ListingFormInput = { slug: "", name: "", description: "", tags: "", gatewayUrl: "", contactEmail: "", endpoints: [] };
const emptyRow: EndpointRowInput = { path: "", method: "GET", title: "", pricingModel: "per_request", priceSats: "" };

/** The order fields appear in, so focus goes to the first one with an error. */
function fieldOrder(form: ListingFormInput): string[] {
  const rows = form.endpoints.flatMap((_, i) => ["path", "method", "title", "pricingModel", "priceSats"].map((f) => `endpoints.${i}.${f}`));
  return ["name", "slug", "description", "tags", "gatewayUrl", "contactEmail", "endpoints", ...rows];
}

/** The input an API field name belongs to: an item of the tag list (`tags.3`) is the tags input. */
const inputField = (field: string) => (/^tags\.\d+$/.test(field) ? "tags" : field);

/** Input ids: `listing-<field>` with dots as dashes (`endpoints.0.path` -> `listing-endpoints-0-path`). */
const inputId = (field: string) => `listing-${field.replace(/\./g, "-")}`;

async function readJson(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

export function ListApiForm({ initialSlug }: { initialSlug?: string }) {
  const [form, setForm] = useState<ListingFormInput>(emptyForm);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [trackedSlug, setTrackedSlug] = useState<string | null>(initialSlug ?? null);
  const formRef = useRef<HTMLFormElement>(null);

  const set = <K extends keyof ListingFormInput>(key: K, value: ListingFormInput[K]) => setForm((f) => ({ ...f, [key]: value }));
  const setRow = (i: number, change: Partial<EndpointRowInput>) =>
    setForm((f) => ({ ...f, endpoints: f.endpoints.map((row, j) => (j === i ? { ...row, ...change } : row)) }));

  function showErrors(found: Record<string, string>) {
    setErrors(found);
    const named = new Set(Object.keys(found).map(inputField));
    const first = fieldOrder(form).find((field) => named.has(field));
    if (first) requestAnimationFrame(() => (formRef.current?.querySelector(`#${inputId(first)}`) as HTMLElement | null)?.focus());
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(null);
    const local = checkListingForm(form);
    if (Object.keys(local).length) return showErrors(local);
    setErrors({});
    setSubmitting(true);
    try {
      const res = await fetch(listingRoutes.submit, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(submissionOf(form)),
      });
      const body = await readJson(res);
      if (res.ok) {
        const slug = form.slug.trim();
        // A reload or a shared link keeps showing this listing's status.
        window.history.replaceState(null, "", `?slug=${encodeURIComponent(slug)}`);
        setTrackedSlug(slug);
        return;
      }
      const fields = fieldErrorsOf(body);
      // A taken slug (409) belongs beside the slug even when the body names no field.
      if (res.status === 409 && !Object.keys(fields).length) fields.slug = (body as { error?: { message?: string } })?.error?.message ?? "is already taken";
      const shown = new Set(fieldOrder(form));
      const elsewhere = Object.entries(fields).filter(([field]) => !shown.has(inputField(field)));
      if (Object.keys(fields).length) showErrors(fields);
      const message = (body as { error?: { message?: string } } | null)?.error?.message;
      if (!Object.keys(fields).length || elsewhere.length)
        setFormError(
          elsewhere.length ? elsewhere.map(([f, m]) => `${f}: ${m}`).join("; ") : (message ?? `The listing could not be submitted (HTTP ${res.status}).`),
        );
    } catch {
      setFormError("The server could not be reached; check your connection and try again.");
    } finally {
      setSubmitting(false);
    }
  }

  if (trackedSlug)
    return <ListingStatus slug={trackedSlug} onStartOver={() => (setTrackedSlug(null), window.history.replaceState(null, "", window.location.pathname))} />;

  const rowError = (i: number, field: string) => errors[`endpoints.${i}.${field}`];
  return (
    <form ref={formRef} onSubmit={submit} className="flex flex-col gap-5" noValidate aria-describedby={formError ? "listing-form-error" : undefined}>
      {formError ? (
        <p id="listing-form-error" role="alert" className="rounded-xl border border-danger/40 bg-danger/5 px-4 py-3 text-sm text-danger">
          {formError}
        </p>
      ) : null}
      <Field id={inputId("name")} label="Name" error={errors.name} hint={`Shown in the directory. At most ${listingBounds.nameMax} characters.`}>
        {(control) => (
          <input
            {...control}
            className="input-field"
            value={form.name}
            onChange={(e) => set("name", e.target.value)}
            maxLength={listingBounds.nameMax}
            required
          />
        )}
      </Field>
      <Field
        id={inputId("slug")}
        label="Slug"
        error={errors.slug}
        hint={`Your page's address: /directory/<slug>. ${listingBounds.slugMin}–${listingBounds.slugMax} letters, digits or hyphens; permanent.`}
      >
        {(control) => (
          <input
            {...control}
            className="input-field font-mono"
            value={form.slug}
            onChange={(e) => set("slug", e.target.value)}
            minLength={listingBounds.slugMin}
            maxLength={listingBounds.slugMax}
            pattern="[A-Za-z0-9\-]+"
            required
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <Field
        id={inputId("description")}
        label="Description"
        error={errors.description}
        hint={`Optional. ${form.description.length}/${listingBounds.descriptionMax} characters.`}
      >
        {(control) => (
          <textarea
            {...control}
            className="input-field min-h-24"
            value={form.description}
            onChange={(e) => set("description", e.target.value)}
            maxLength={listingBounds.descriptionMax}
          />
        )}
      </Field>
      <Field
        id={inputId("tags")}
        label="Tags"
        error={errors.tags ?? Object.entries(errors).find(([k]) => k.startsWith("tags."))?.[1]}
        hint={`Optional. Comma-separated, up to ${listingBounds.tagsMax}, e.g. weather, maps.`}
      >
        {(control) => <input {...control} className="input-field" value={form.tags} onChange={(e) => set("tags", e.target.value)} autoComplete="off" />}
      </Field>
      <Field
        id={inputId("gatewayUrl")}
        label="Gateway address"
        error={errors.gatewayUrl}
        hint="The HTTPS base address of your L402 gateway. Endpoint paths are relative to it; priced ones must answer 402 with an L402 challenge."
      >
        {(control) => (
          <input
            {...control}
            type="url"
            inputMode="url"
            placeholder="https://api.example.com"
            className="input-field font-mono"
            value={form.gatewayUrl}
            onChange={(e) => set("gatewayUrl", e.target.value)}
            required
            spellCheck={false}
          />
        )}
      </Field>
      <Field id={inputId("contactEmail")} label="Contact e-mail" error={errors.contactEmail} hint="Where the review's result goes. Not shown publicly.">
        {(control) => (
          <input
            {...control}
            type="email"
            autoComplete="email"
            className="input-field"
            value={form.contactEmail}
            onChange={(e) => set("contactEmail", e.target.value)}
            required
          />
        )}
      </Field>

      <fieldset className="flex flex-col gap-4 rounded-2xl border border-line p-4" aria-describedby="listing-endpoints-hint">
        <legend className="px-1 text-sm font-medium">Endpoints (optional)</legend>
        <p id="listing-endpoints-hint" className="text-xs text-muted">
          Leave empty and the review reads them from your gateway&apos;s <code className="font-mono">/.well-known/l402-gateway.json</code> or{" "}
          <code className="font-mono">openapi.json</code>. A free endpoint has no pricing model.
        </p>
        {errors.endpoints ? (
          <p id={inputId("endpoints")} tabIndex={-1} className="text-sm text-danger">
            {errors.endpoints}
          </p>
        ) : null}
        {form.endpoints.map((row, i) => (
          <div key={i} role="group" aria-label={`Endpoint ${i + 1}`} className="grid gap-3 rounded-xl bg-surface-subtle p-3 sm:grid-cols-2">
            <Field id={inputId(`endpoints.${i}.path`)} label="Path" error={rowError(i, "path")} hint="Starts with /, e.g. /v1/forecast.">
              {(control) => (
                <input
                  {...control}
                  className="input-field font-mono"
                  value={row.path}
                  onChange={(e) => setRow(i, { path: e.target.value })}
                  spellCheck={false}
                />
              )}
            </Field>
            <Field id={inputId(`endpoints.${i}.method`)} label="Method" error={rowError(i, "method")}>
              {(control) => (
                <select {...control} className="input-field" value={row.method} onChange={(e) => setRow(i, { method: e.target.value })}>
                  {endpointMethods.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field id={inputId(`endpoints.${i}.title`)} label="Title" error={rowError(i, "title")} hint="Optional.">
              {(control) => <input {...control} className="input-field" value={row.title} onChange={(e) => setRow(i, { title: e.target.value })} />}
            </Field>
            <Field id={inputId(`endpoints.${i}.pricingModel`)} label="Pricing model" error={rowError(i, "pricingModel")}>
              {(control) => (
                <select
                  {...control}
                  className="input-field"
                  value={row.pricingModel}
                  onChange={(e) => setRow(i, { pricingModel: e.target.value as EndpointRowInput["pricingModel"] })}
                >
                  <option value="">Free</option>
                  {listingPricingModels.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {row.pricingModel ? (
              <Field id={inputId(`endpoints.${i}.priceSats`)} label="Price (sats)" error={rowError(i, "priceSats")} hint="What the 402 invoice asks for.">
                {(control) => (
                  <input
                    {...control}
                    inputMode="numeric"
                    className="input-field tabular-nums"
                    value={row.priceSats}
                    onChange={(e) => setRow(i, { priceSats: e.target.value })}
                  />
                )}
              </Field>
            ) : null}
            <div className="flex items-end sm:col-span-2">
              <button type="button" className="btn-secondary" onClick={() => setForm((f) => ({ ...f, endpoints: f.endpoints.filter((_, j) => j !== i) }))}>
                Remove endpoint {i + 1}
              </button>
            </div>
          </div>
        ))}
        <div>
          <button type="button" className="btn-secondary" onClick={() => setForm((f) => ({ ...f, endpoints: [...f.endpoints, { ...emptyRow }] }))}>
            Add an endpoint
          </button>
        </div>
      </fieldset>

      <div>
        <button type="submit" className="btn-primary" disabled={submitting}>
          {submitting ? "Submitting…" : "Submit for review"}
        </button>
      </div>
    </form>
  );
}

const statusWords: Record<ListingStatusView["status"], string> = {
  pending: "Under review",
  approved: "Approved: listed in the directory",
  rejected: "Rejected",
  suspended: "Suspended: the gateway has been unreachable",
};

/** The live status of one listing, read every few seconds until the review decides. */
function ListingStatus({ slug, onStartOver }: { slug: string; onStartOver: () => void }) {
  const [view, setView] = useState<ListingStatusView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const load = useCallback(
    async (signal: AbortSignal): Promise<boolean> => {
      try {
        const res = await fetch(listingRoutes.status(slug), { signal, cache: "no-store" });
        const body = await readJson(res);
        if (!res.ok) {
          setProblem(res.status === 404 ? `No listing is called “${slug}”.` : `The status could not be read (HTTP ${res.status}); retrying.`);
          return res.status === 404;
        }
        setProblem(null);
        setView(body as ListingStatusView);
        return isDecided((body as ListingStatusView).status);
      } catch (err) {
        if ((err as Error).name === "AbortError") return true;
        setProblem("The server could not be reached; retrying.");
        return false;
      }
    },
    [slug],
  );

  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      const done = await load(abort.signal);
      if (!done && !abort.signal.aborted) timer = setTimeout(tick, pollMs);
    };
    void tick();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [load]);

  return (
    <section aria-labelledby="listing-status-heading" className="flex flex-col gap-4 rounded-2xl border border-line bg-surface p-5">
      <h2 id="listing-status-heading" className="text-lg font-semibold">
        Listing status: <span className="font-mono">{slug}</span>
      </h2>
      <div role="status" aria-live="polite" className="text-sm">
        {view ? (
          <p>
            <strong className="font-semibold">{statusWords[view.status] ?? view.status}</strong>
            {view.status === "pending" ? " · checking again every few seconds" : null}
          </p>
        ) : problem ? null : (
          <p>Loading…</p>
        )}
        {problem ? <p className="text-danger">{problem}</p> : null}
      </div>
      {view ? (
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-muted">Name</dt>
          <dd>{view.name}</dd>
          <dt className="text-muted">Submitted</dt>
          <dd>
            <time dateTime={view.createdAt}>{new Date(view.createdAt).toUTCString()}</time>
          </dd>
          {view.summary ? (
            <>
              <dt className="text-muted">Review</dt>
              <dd>{view.summary}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      {view?.findings?.length ? (
        <section aria-labelledby="listing-findings-heading">
          <h3 id="listing-findings-heading" className="text-sm font-semibold">
            Review findings
          </h3>
          <ul className="mt-2 divide-y divide-line rounded-xl border border-line text-sm">
            {view.findings.map((finding, i) => (
              <li key={i} className="flex gap-3 px-3 py-2">
                <span className={finding.ok ? "text-success" : "text-danger"}>{finding.ok ? "Passed" : "Failed"}</span>
                <span className="min-w-0">
                  <span className="font-medium">{finding.check}</span>
                  {finding.endpoint ? <span className="font-mono text-xs text-muted"> {finding.endpoint}</span> : null}
                  <span className="block text-muted">{finding.message}</span>
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <div className="flex flex-wrap gap-3">
        {view?.status === "approved" ? (
          <a href={`/directory/${encodeURIComponent(view.slug)}`} className="btn-primary">
            See it in the directory
          </a>
        ) : null}
        <button type="button" className="btn-secondary" onClick={onStartOver}>
          Submit another API
        </button>
      </div>
    </section>
  );
}
