// One endpoint on an API page: method and path, price in words, parameters, examples, docs.
import type { ReactNode } from "react";
import type { EndpointDetail } from "@/lib/directory/schemas.ts";
import { describePrice, pricingModelLabel } from "@/lib/pricing/describe-price.ts";
import { prettyJson } from "@/lib/format/pretty-json.ts";
import { CodeBlock } from "./code-block.tsx";
import { ExternalLinkIcon } from "./icons.tsx";
import { MethodBadge } from "./method-badge.tsx";

/** A stable fragment id for linking to an endpoint: "get-v1-fortune". */
export function endpointAnchor(endpoint: Pick<EndpointDetail, "method" | "path">): string {
  const slug = `${endpoint.method}-${endpoint.path}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `endpoint-${slug}`;
}

/** The example request as a reader thinks of it: the request line, then the body if any. */
function exampleRequestText(endpoint: EndpointDetail): string | null {
  const { query, body, headers } = endpoint.exampleRequest;
  const hasQuery = typeof query === "object" && query !== null && Object.keys(query).length > 0;
  if (!hasQuery && body === undefined && headers === undefined) {
    return Object.keys(endpoint.exampleRequest).length ? prettyJson(endpoint.exampleRequest) : null;
  }
  const qs = hasQuery
    ? `?${new URLSearchParams(Object.entries(query as Record<string, unknown>).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])).toString().replaceAll("%2C", ",")}`
    : "";
  const lines = [`${endpoint.method} ${endpoint.path}${qs}`];
  if (typeof headers === "object" && headers !== null) {
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${String(value)}`);
  }
  if (body !== undefined) lines.push("", prettyJson(body));
  return lines.join("\n");
}

/** `children` closes the card: the API page puts the endpoint's try-it panel there. */
export function EndpointCard({ endpoint, children }: { endpoint: EndpointDetail; children?: ReactNode }) {
  const anchor = endpointAnchor(endpoint);
  const request = exampleRequestText(endpoint);
  const hasResponse = Object.keys(endpoint.exampleResponse).length > 0;
  const free = endpoint.pricingModel === null;
  return (
    <article id={anchor} aria-labelledby={`${anchor}-title`} className="scroll-mt-20 rounded-2xl border border-line bg-surface">
      <header className="flex flex-wrap items-center justify-between gap-3 border-b border-line px-4 py-4 sm:px-5">
        <div className="flex min-w-0 items-center gap-3">
          <MethodBadge method={endpoint.method} />
          <code className="min-w-0 font-mono text-sm font-medium break-all">{endpoint.path}</code>
        </div>
        <p
          className={`shrink-0 rounded-full px-3 py-1 text-sm font-medium ${
            free ? "bg-emerald-50 text-emerald-800 dark:bg-emerald-400/10 dark:text-emerald-300" : "bg-accent-soft text-accent"
          }`}
        >
          {describePrice(endpoint)}
        </p>
      </header>
      <div className="space-y-5 px-4 py-5 sm:px-5">
        <div>
          <h3 id={`${anchor}-title`} className="font-semibold">
            {endpoint.title || `${endpoint.method} ${endpoint.path}`}
          </h3>
          {endpoint.description ? <p className="mt-1 text-sm leading-6 text-muted">{endpoint.description}</p> : null}
          <ul className="mt-3 flex flex-wrap gap-2 text-xs text-muted">
            <li className="rounded-md border border-line px-2 py-0.5">{pricingModelLabel(endpoint.pricingModel)}</li>
            {endpoint.freeTryEnabled ? <li className="rounded-md border border-line px-2 py-0.5">Free try: one call a day when signed in</li> : null}
          </ul>
        </div>

        {endpoint.parameters.length ? (
          <div>
            <h4 className="text-sm font-semibold">Parameters</h4>
            {/* A table from the small breakpoint up; a stacked list on phones, where four columns do not fit. */}
            <ul className="mt-2 divide-y divide-line rounded-xl border border-line text-sm sm:hidden">
              {endpoint.parameters.map((param) => (
                <li key={`${param.in}-${param.name}`} className="px-3 py-2.5">
                  <div className="flex flex-wrap items-baseline gap-x-2">
                    <code className="font-mono text-[13px] font-medium">{param.name}</code>
                    <span className="font-mono text-xs text-muted">{param.type}</span>
                    <span className="text-xs text-muted">in {param.in}</span>
                    {param.required ? <span className="text-xs text-accent">required</span> : null}
                  </div>
                  {param.description ? <p className="mt-1 text-muted">{param.description}</p> : null}
                </li>
              ))}
            </ul>
            <div className="mt-2 hidden overflow-x-auto rounded-xl border border-line sm:block">
              <table className="w-full text-left text-sm">
                <thead className="bg-surface-subtle text-xs text-muted">
                  <tr>
                    <th scope="col" className="px-3 py-2 font-medium">
                      Name
                    </th>
                    <th scope="col" className="px-3 py-2 font-medium">
                      In
                    </th>
                    <th scope="col" className="px-3 py-2 font-medium">
                      Type
                    </th>
                    <th scope="col" className="px-3 py-2 font-medium">
                      Description
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-line">
                  {endpoint.parameters.map((param) => (
                    <tr key={`${param.in}-${param.name}`} className="align-top">
                      <td className="px-3 py-2 whitespace-nowrap">
                        <code className="font-mono text-[13px]">{param.name}</code>
                        {param.required ? <span className="ml-1.5 text-xs text-accent">required</span> : null}
                      </td>
                      <td className="px-3 py-2 text-muted">{param.in}</td>
                      <td className="px-3 py-2 font-mono text-[13px] text-muted">{param.type}</td>
                      <td className="px-3 py-2 text-muted">{param.description || "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        ) : null}

        {request || hasResponse ? (
          <div className="space-y-4">
            {request ? <CodeBlock caption="Example request" code={request} copyLabel="Copy example request" /> : null}
            {hasResponse ? <CodeBlock caption="Example response" code={prettyJson(endpoint.exampleResponse)} copyLabel="Copy example response" /> : null}
          </div>
        ) : null}

        {endpoint.docsUrl ? (
          <p>
            <a
              href={endpoint.docsUrl}
              rel="noopener noreferrer nofollow"
              target="_blank"
              className="inline-flex items-center gap-1 text-sm font-medium text-accent hover:underline"
            >
              Documentation <ExternalLinkIcon />
              <span className="sr-only">(opens in a new tab)</span>
            </a>
          </p>
        ) : null}
        {children}
      </div>
    </article>
  );
}
