"use client";
// Create or edit one endpoint. Only the fields the chosen pricing model and options use are shown;
// the body is checked in the browser with the API's own schema (validateDraft) and again by the
// API, whose 422 lands on the same fields. Beside the form: the price as consumers read it and
// the 402 body the gateway will send (previewChallengeBody, the gateway's own body builder).
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import { ENDPOINT_LIMITS, HTTP_METHODS, MODEL_FIELDS, pathParameterNames, type EndpointResponse } from "@/lib/endpoints/schemas.ts";
import { previewChallengeBody } from "@/lib/payments/challenge-body.ts";
import { describePrice } from "@/lib/pricing/describe-price.ts";
import { PRICING_MODELS, type PricingModel } from "@/lib/pricing/quote.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";
import { ParametersEditor } from "./parameters-editor.tsx";
import { draftFrom, draftPriceRule, pricingFieldLabel, PRICING_MODEL_HELP, validateDraft, type DraftErrors, type EndpointDraft } from "./endpoint-draft.ts";

type Props = { tenantId: string; slug: string; gatewayUrl: string; endpoint: EndpointResponse | null };

const PRICING_OPTIONS: (PricingModel | null)[] = [null, ...PRICING_MODELS];

export function EndpointForm({ tenantId, slug, gatewayUrl, endpoint }: Props) {
  const toast = useToast();
  const router = useRouter();
  const [draft, setDraft] = useState<EndpointDraft>(() => draftFrom(endpoint));
  const [serverErrors, setServerErrors] = useState<DraftErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const listHref = `/dashboard/${slug}/endpoints`;

  const checked = useMemo(() => validateDraft(draft), [draft]);
  // Before the first submit only the cross-field rules that explain a choice show (per_kb + streaming,
  // bad JSON); after it, every problem does. Server errors stay until the field is edited.
  const live: DraftErrors = submitted
    ? checked.errors
    : Object.fromEntries(Object.entries(checked.errors).filter(([k]) => k === "streaming" || k.startsWith("example")));
  const errors: DraftErrors = { ...live, ...serverErrors };

  function update<K extends keyof EndpointDraft>(key: K, value: EndpointDraft[K]) {
    setDraft((d) => ({ ...d, [key]: value }));
    setServerErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== key && !k.startsWith(`${key}.`))));
  }

  const save = useApiMutation({
    mutationFn: (body: Record<string, unknown>) =>
      endpoint
        ? apiFetch<EndpointResponse>(`/tenants/${tenantId}/endpoints/${endpoint.id}`, { method: "PATCH", body })
        : apiFetch<EndpointResponse>(`/tenants/${tenantId}/endpoints`, { method: "POST", body }),
    onSuccess: (saved) => {
      toast.success(endpoint ? `Saved ${saved.method} ${saved.path}` : `Created ${saved.method} ${saved.path}`);
      if (endpoint) {
        setDraft(draftFrom(saved));
        router.refresh();
      } else {
        router.push(listHref);
        router.refresh();
      }
    },
    onFieldErrors: setServerErrors,
    // A duplicate method + path is a 409 naming no field: it belongs on the path.
    conflictField: "path",
  });

  const remove = useApiMutation({
    mutationFn: () => apiFetch<null>(`/tenants/${tenantId}/endpoints/${endpoint!.id}`, { method: "DELETE" }),
    onSuccess: () => {
      toast.success(`Deleted ${endpoint!.method} ${endpoint!.path}`);
      router.push(listHref);
      router.refresh();
    },
    onError: () => setConfirmDelete(false),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setServerErrors({});
    if (Object.keys(checked.errors).length) {
      // Focus the first invalid control so keyboard and screen reader users land on the problem.
      requestAnimationFrame(() => document.querySelector<HTMLElement>("[aria-invalid=true]")?.focus());
      return;
    }
    save.mutate(checked.body);
  }

  const model = draft.pricingModel;
  const rule = draftPriceRule(draft);
  const complete = model !== null && MODEL_FIELDS[model].every((f) => rule[f] !== null);
  const challenge = complete ? previewChallengeBody(rule) : null;
  const pathParams = pathParameterNames(draft.path);
  const numberInput = (
    key:
      "priceSats" | "tokenBudget" | "durationMinutes" | "unitCostSats" | "cacheTtlSeconds" | "maxStreamSeconds" | "idleTimeoutSeconds" | "rateLimitPerMinute",
    label: string,
    hint: ReactNode,
    placeholder?: string,
  ) => (
    <Field key={key} id={`endpoint-${key}`} label={label} hint={hint} error={errors[key]}>
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          className="input-field"
          value={draft[key]}
          placeholder={placeholder}
          onChange={(e) => update(key, e.target.value)}
        />
      )}
    </Field>
  );

  return (
    <div className="grid gap-8 xl:grid-cols-[minmax(0,1fr)_22rem]">
      <form onSubmit={submit} noValidate className="flex min-w-0 flex-col gap-6" aria-label={endpoint ? "Edit endpoint" : "New endpoint"}>
        <section aria-labelledby="route-heading" className="card flex flex-col gap-4">
          <h2 id="route-heading" className="text-lg font-semibold">
            Route
          </h2>
          <div className="grid gap-4 sm:grid-cols-[8rem_minmax(0,1fr)]">
            <Field id="endpoint-method" label="Method" error={errors.method}>
              {(control) => (
                <select {...control} className="input-field" value={draft.method} onChange={(e) => update("method", e.target.value as EndpointDraft["method"])}>
                  {HTTP_METHODS.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              id="endpoint-path"
              label="Path"
              error={errors.path}
              hint={
                <>
                  Under your gateway address ({gatewayUrl}) and your origin alike. A whole segment in braces, like{" "}
                  <span className="font-mono">{"{address}"}</span>, is a path parameter.
                </>
              }
            >
              {(control) => (
                <input
                  {...control}
                  className="input-field font-mono"
                  value={draft.path}
                  placeholder="/v1/quote/{symbol}"
                  onChange={(e) => update("path", e.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
              )}
            </Field>
          </div>
          <Field id="endpoint-title" label="Title" error={errors.title} hint="A few words for the directory, e.g. “Stock quote”.">
            {(control) => <input {...control} className="input-field" value={draft.title} maxLength={200} onChange={(e) => update("title", e.target.value)} />}
          </Field>
          <Field id="endpoint-description" label="Description" error={errors.description} hint="What it returns and when to use it (up to 2,000 characters).">
            {(control) => (
              <textarea
                {...control}
                rows={3}
                className="input-field"
                value={draft.description}
                maxLength={2000}
                onChange={(e) => update("description", e.target.value)}
              />
            )}
          </Field>
          <Field id="endpoint-docsUrl" label="Documentation URL (optional)" error={errors.docsUrl} hint="Linked from the directory page.">
            {(control) => (
              <input
                {...control}
                type="url"
                inputMode="url"
                className="input-field"
                value={draft.docsUrl}
                placeholder="https://docs.example.com/quote"
                onChange={(e) => update("docsUrl", e.target.value)}
              />
            )}
          </Field>
        </section>

        <section aria-labelledby="pricing-heading" className="card flex flex-col gap-4">
          <h2 id="pricing-heading" className="text-lg font-semibold">
            Pricing
          </h2>
          <fieldset>
            <legend className="text-sm font-medium">Pricing model</legend>
            <div className="mt-2 grid gap-2 sm:grid-cols-2">
              {PRICING_OPTIONS.map((option) => {
                const help = PRICING_MODEL_HELP[option ?? "free"];
                return (
                  <label
                    key={option ?? "free"}
                    className="flex cursor-pointer gap-3 rounded-lg border border-line-strong px-3 py-2.5 text-sm has-[:checked]:border-accent has-[:checked]:bg-accent-soft has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-accent-ring"
                  >
                    <input type="radio" name="pricing-model" className="mt-1" checked={model === option} onChange={() => update("pricingModel", option)} />
                    <span>
                      <span className="font-medium">{help.title}</span>
                      <span className="mt-0.5 block text-xs text-muted">{help.sentence}</span>
                    </span>
                  </label>
                );
              })}
            </div>
            {errors.pricingModel ? <p className="mt-2 text-sm text-danger">{errors.pricingModel}</p> : null}
          </fieldset>
          {model ? (
            <div className="grid gap-4 sm:grid-cols-2">
              {MODEL_FIELDS[model].map((field) =>
                numberInput(
                  field,
                  pricingFieldLabel(model, field),
                  field === "priceSats"
                    ? model === "per_kb" || model === "metered"
                      ? "Paid up front to open the session; the balance is spent call by call."
                      : `The invoice amount of each purchase (1 to ${ENDPOINT_LIMITS.maxSats.toLocaleString("en-US")}).`
                    : field === "unitCostSats"
                      ? `Deducted from the deposit ${model === "per_kb" ? "per KB of response" : "per call"}; at most the deposit.`
                      : field === "tokenBudget"
                        ? "How many calls one payment buys."
                        : "How long the pass lasts from payment (60 = one hour, 1440 = one day).",
                ),
              )}
            </div>
          ) : null}
          {model ? (
            <label className="flex items-start gap-3 text-sm">
              <input
                type="checkbox"
                className="mt-1"
                checked={draft.freeTryEnabled}
                onChange={(e) => update("freeTryEnabled", e.target.checked)}
                aria-describedby="free-try-hint"
              />
              <span>
                <span className="font-medium">Free try</span>
                <span id="free-try-hint" className="block text-xs text-muted">
                  Signed-in consumers may call it once a day without paying, to see that it works.
                </span>
              </span>
            </label>
          ) : null}
        </section>

        <section aria-labelledby="delivery-heading" className="card flex flex-col gap-4">
          <h2 id="delivery-heading" className="text-lg font-semibold">
            Delivery
          </h2>
          <div className="flex flex-col gap-1.5">
            <label className="flex items-start gap-3 text-sm">
              <input
                type="checkbox"
                className="mt-1"
                checked={draft.streaming}
                onChange={(e) => update("streaming", e.target.checked)}
                aria-invalid={Boolean(errors.streaming)}
                aria-describedby={errors.streaming ? "streaming-error streaming-hint" : "streaming-hint"}
              />
              <span>
                <span className="font-medium">Streaming (server-sent events)</span>
                <span id="streaming-hint" className="block text-xs text-muted">
                  The response is passed through as it is produced; a stream is priced as one connection.
                </span>
              </span>
            </label>
            {errors.streaming ? (
              <p id="streaming-error" className="text-sm text-danger" role="alert">
                {errors.streaming}
              </p>
            ) : null}
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            {draft.streaming ? (
              <>
                {numberInput("maxStreamSeconds", "Longest stream (seconds, optional)", "The gateway closes a stream after this long.")}
                {numberInput(
                  "idleTimeoutSeconds",
                  "Idle timeout (seconds, optional)",
                  "Closed when the origin sends nothing for this long; at most the longest stream.",
                )}
              </>
            ) : (
              numberInput(
                "cacheTtlSeconds",
                "Cache for (seconds, optional)",
                "Successful GET responses are reused for this long (up to one day); empty means never cached.",
              )
            )}
            {numberInput(
              "rateLimitPerMinute",
              "Rate limit per minute (optional)",
              "Requests per minute per caller; empty means the platform default (30/min for anonymous callers).",
            )}
          </div>
          <label className="flex items-start gap-3 text-sm">
            <input
              type="checkbox"
              className="mt-1"
              checked={draft.forwardCookies}
              onChange={(e) => update("forwardCookies", e.target.checked)}
              aria-describedby="cookies-hint"
            />
            <span>
              <span className="font-medium">Relay cookies</span>
              <span id="cookies-hint" className="block text-xs text-muted">
                Off: the gateway strips cookies both ways. On: callers&apos; cookies reach your origin (never the platform&apos;s own), and your origin&apos;s
                cookies reach callers when they stay on your API&apos;s own address (no Domain attribute).
              </span>
            </span>
          </label>
          <label className="flex items-start gap-3 text-sm">
            <input
              type="checkbox"
              className="mt-1"
              checked={draft.isActive}
              onChange={(e) => update("isActive", e.target.checked)}
              aria-describedby="active-hint"
            />
            <span>
              <span className="font-medium">Active</span>
              <span id="active-hint" className="block text-xs text-muted">
                Inactive endpoints answer 404 at the gateway and leave the directory; paid sessions already open keep their balance.
              </span>
            </span>
          </label>
        </section>

        <section aria-labelledby="docs-heading" className="card flex flex-col gap-4">
          <h2 id="docs-heading" className="text-lg font-semibold">
            Parameters and examples
          </h2>
          <ParametersEditor parameters={draft.parameters} pathParams={pathParams} errors={errors} onChange={(parameters) => update("parameters", parameters)} />
          <Field
            id="endpoint-exampleRequest"
            label="Example request (JSON, optional)"
            error={errors.exampleRequest ?? errors["exampleRequest.query"]}
            hint={
              <>
                Used by the directory&apos;s try-it and the health probe, e.g.{" "}
                <span className="font-mono">{'{"query": {"limit": 10}, "path": {"symbol": "BTC"}}'}</span>.
              </>
            }
          >
            {(control) => (
              <textarea
                {...control}
                rows={5}
                className="input-field font-mono text-xs"
                value={draft.exampleRequest}
                onChange={(e) => update("exampleRequest", e.target.value)}
                spellCheck={false}
              />
            )}
          </Field>
          <Field
            id="endpoint-exampleResponse"
            label="Example response (JSON, optional)"
            error={errors.exampleResponse}
            hint="Shown on the directory page so consumers know what they pay for."
          >
            {(control) => (
              <textarea
                {...control}
                rows={5}
                className="input-field font-mono text-xs"
                value={draft.exampleResponse}
                onChange={(e) => update("exampleResponse", e.target.value)}
                spellCheck={false}
              />
            )}
          </Field>
        </section>

        <div className="flex flex-wrap items-center gap-2">
          <button type="submit" className="btn-primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : endpoint ? "Save changes" : "Create endpoint"}
          </button>
          <Link href={listHref} className="btn-secondary">
            {endpoint ? "Back to endpoints" : "Cancel"}
          </Link>
          {submitted && Object.keys(checked.errors).length ? (
            <p className="text-sm text-danger" role="alert">
              Fix the highlighted fields first.
            </p>
          ) : null}
        </div>

        {endpoint ? (
          <section aria-labelledby="delete-heading" className="card flex flex-col gap-3 border-danger/30">
            <h2 id="delete-heading" className="text-lg font-semibold">
              Delete
            </h2>
            <p className="text-sm text-muted">
              Deleting removes the endpoint and its history. While consumers hold paid sessions on it, deactivate it instead.
            </p>
            {confirmDelete ? (
              <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Confirm deletion">
                <span className="text-sm">
                  Delete{" "}
                  <span className="font-mono">
                    {endpoint.method} {endpoint.path}
                  </span>
                  ?
                </span>
                <button type="button" className="btn-danger" onClick={() => remove.mutate()} disabled={remove.isPending} autoFocus>
                  {remove.isPending ? "Deleting…" : "Yes, delete"}
                </button>
                <button type="button" className="btn-secondary" onClick={() => setConfirmDelete(false)} disabled={remove.isPending}>
                  Cancel
                </button>
              </div>
            ) : (
              <div>
                <button type="button" className="btn-danger" onClick={() => setConfirmDelete(true)}>
                  Delete endpoint
                </button>
              </div>
            )}
          </section>
        ) : null}
      </form>

      <aside aria-labelledby="preview-heading" className="flex min-w-0 flex-col gap-4 xl:sticky xl:top-6 xl:self-start">
        <h2 id="preview-heading" className="text-lg font-semibold">
          Preview
        </h2>
        <div className="card flex flex-col gap-1" role="status" aria-label="Price preview">
          <p className="text-xs text-muted">Consumers read</p>
          <p className="text-base font-semibold">
            {model === null || complete ? describePrice(rule) : `${PRICING_MODEL_HELP[model].title}: fill in the numbers`}
          </p>
          <p className="text-xs text-muted">
            <span className="font-mono">
              {draft.method} {gatewayUrl}
              {draft.path || "/…"}
            </span>
            {draft.freeTryEnabled && model ? " · free try once a day" : ""}
            {draft.streaming ? " · streams (priced per connection)" : ""}
          </p>
        </div>
        {model === null ? (
          <p className="text-sm text-muted">Free endpoints answer directly: there is no 402 challenge.</p>
        ) : challenge ? (
          <div className="flex flex-col gap-2">
            <CodeBlock code={JSON.stringify(challenge, null, 2)} caption="402 Payment Required · body" copyLabel="Copy challenge body" />
            <p className="text-xs text-muted">
              With headers <span className="font-mono">WWW-Authenticate: L402 macaroon=&quot;…&quot;, invoice=&quot;…&quot;</span>. The invoice and hash are new
              for every call.
            </p>
          </div>
        ) : (
          <p className="text-sm text-muted">The 402 challenge appears once the {PRICING_MODEL_HELP[model].title.toLowerCase()} numbers are valid.</p>
        )}
      </aside>
    </div>
  );
}
