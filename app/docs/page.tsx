// /docs: how to pay an L402 endpoint with curl, the five pricing models, agents (discovery, MCP),
// and the two verifications providers implement (origin signatures, webhook signatures).
import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { paymentSteps, pricingModelGuide } from "@/lib/directory/payment-guide.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";

// SITE_URL and the gateway address template are read at request time.
export const dynamic = "force-dynamic";

const description =
  "How to pay an L402 API with curl, the five pricing models, discovery for agents and MCP, and how providers verify gateway requests and webhooks.";

export async function generateMetadata(): Promise<Metadata> {
  const { config } = await getServerContext();
  const url = `${config.siteUrl}/docs`;
  return {
    title: "Docs",
    description,
    alternates: { canonical: url },
    openGraph: { title: "Docs · L402 Hub", description, url },
    twitter: { card: "summary", title: "L402 Hub docs", description },
  };
}

const sections = [
  { id: "pay", title: "Pay for a call" },
  { id: "pricing", title: "Pricing models" },
  { id: "agents", title: "Agents, SDK and MCP" },
  { id: "directory-api", title: "Directory API" },
  { id: "origin", title: "Verify gateway requests" },
  { id: "webhooks", title: "Verify webhooks" },
];

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={id} aria-labelledby={`${id}-heading`} className="scroll-mt-20">
      <h2 id={`${id}-heading`} className="text-xl font-semibold tracking-tight">
        {title}
      </h2>
      <div className="mt-3 space-y-4 text-sm leading-6 text-muted">{children}</div>
    </section>
  );
}

/** Inline code in running text: renders `backticked` parts of the shared guide text. */
function withCode(text: string): ReactNode[] {
  return text.split(/(`[^`]+`)/).map((part, i) =>
    part.startsWith("`") ? (
      <code key={i} className="font-mono text-[0.9em] text-foreground break-words">
        {part.slice(1, -1)}
      </code>
    ) : (
      part
    ),
  );
}

export default async function DocsPage() {
  const { config } = await getServerContext();
  const gateway = config.gatewayUrlTemplate.replace("{slug}", "demo");
  const curl = [
    `GW=${gateway}`,
    "",
    "# 1. Call: 402 Payment Required with an invoice and a macaroon",
    "curl -si $GW/v1/fortune",
    '# WWW-Authenticate: L402 macaroon="AgEEbHNhdAJC...", invoice="lnbc10n1p..."',
    "",
    "# 2. Pay the invoice with any Lightning wallet; it shows the preimage",
    "",
    "# 3. Call again with the proof",
    "curl -si $GW/v1/fortune -H 'Authorization: L402 <macaroon>:<preimage>'",
    "# HTTP/1.1 200 OK",
    "# X-Hub-Payment: charged",
  ].join("\n");
  const webhookVerify = [
    "import { createHmac, timingSafeEqual } from 'node:crypto';",
    "",
    "// raw = the request body exactly as received (await req.text())",
    "const ts = req.headers.get('x-webhook-timestamp');          // Unix ms",
    "const sig = req.headers.get('x-webhook-signature');         // hex",
    "const expected = createHmac('sha256', secret).update(`${ts}.${raw}`).digest('hex');",
    "const fresh = Math.abs(Date.now() - Number(ts)) <= 5 * 60_000;",
    "const ok = fresh && sig.length === expected.length &&",
    "  timingSafeEqual(Buffer.from(sig), Buffer.from(expected));",
  ].join("\n");

  return (
    <div className="mx-auto grid max-w-6xl gap-12 px-4 pt-10 pb-6 sm:px-6 sm:pt-14 lg:grid-cols-[12rem_minmax(0,1fr)]">
      <nav aria-label="On this page" className="hidden lg:sticky lg:top-20 lg:block lg:self-start">
        <p className="text-xs font-semibold tracking-wide text-muted uppercase">On this page</p>
        <ul className="mt-3 space-y-2 text-sm">
          {sections.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`} className="text-muted hover:text-foreground">
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="min-w-0 max-w-3xl space-y-14">
        <header>
          <h1 className="text-3xl font-semibold tracking-tight">Docs</h1>
          <p className="mt-3 text-lg leading-8 text-pretty text-muted">
            Every API in the directory is paid the same way: HTTP&apos;s 402 Payment Required, a Lightning invoice, and a proof of payment in the next request.
            No accounts, no API keys.
          </p>
        </header>

        <Section id="pay" title="Pay for a call">
          <ol className="list-decimal space-y-2 pl-5">
            {paymentSteps.map((step) => (
              <li key={step}>{withCode(step)}</li>
            ))}
          </ol>
          <CodeBlock caption="Shell" code={curl} copyLabel="Copy curl walkthrough" />
          <p>
            A spent, expired or depleted credential gets a fresh 402 (pay again); a forged one gets 401. Every response carries{" "}
            <code className="font-mono text-foreground">X-Request-Id</code>; paid calls also carry{" "}
            <code className="font-mono text-foreground">X-Hub-Payment</code> (<code className="font-mono">charged</code>,{" "}
            <code className="font-mono">reverted</code>, <code className="font-mono">refunded_to_balance</code> or{" "}
            <code className="font-mono">not_charged</code>).
          </p>
        </Section>

        <Section id="pricing" title="Pricing models">
          <p>Each endpoint has at most one pricing rule; an endpoint without one is free.</p>
          <dl className="divide-y divide-line rounded-2xl border border-line bg-surface">
            {pricingModelGuide.map((m) => (
              <div key={m.model} className="px-4 py-3">
                <dt className="font-medium text-foreground">
                  {m.name} <code className="ml-1 font-mono text-xs text-muted">{m.model}</code>
                </dt>
                <dd className="mt-1">{withCode(m.summary)}</dd>
                <dd className="mt-1 text-xs">
                  Fields:{" "}
                  {m.fields.map((f, i) => (
                    <span key={f}>
                      {i ? ", " : ""}
                      <code className="font-mono">{f}</code>
                    </span>
                  ))}
                </dd>
              </div>
            ))}
          </dl>
        </Section>

        <Section id="agents" title="Agents, SDK and MCP">
          <p>
            Every gateway describes itself under <code className="font-mono text-foreground">/.well-known/</code>:{" "}
            <code className="font-mono text-foreground">l402-gateway.json</code> (endpoints, pricing, examples),{" "}
            <code className="font-mono text-foreground">openapi.json</code> (OpenAPI 3.1 with <code className="font-mono">x-l402-pricing</code> and the L402
            security scheme) and <code className="font-mono text-foreground">mcp.json</code> (a ready-to-paste MCP client config).
          </p>
          <p id="sdk">
            Any L402 client pays these gateways unchanged, for example Alby&apos;s <code className="font-mono">fetchWithL402</code>, or ours:{" "}
            <code className="font-mono">npm install @l402-hub/sdk</code> (the L402 client with wallet adapters, the origin signature and webhook verifiers, and
            the MCP server). Each API page shows its MCP config with a copy button: the command (
            <code className="font-mono">npx -y @l402-hub/sdk@&lt;version&gt; --gateway &lt;gateway url&gt;</code>, Node 20+) starts the package&apos;s MCP
            server, which exposes the API&apos;s endpoints as tools and pays from the wallet named in its environment (
            <code className="font-mono">HUB_WALLET</code>, within <code className="font-mono">HUB_BUDGET_SATS</code>).
          </p>
          <p>
            Crawlers and language models can start from{" "}
            <a className="font-medium text-accent hover:underline" href="/llms.txt">
              /llms.txt
            </a>{" "}
            and{" "}
            <a className="font-medium text-accent hover:underline" href="/llms-full.txt">
              /llms-full.txt
            </a>
            .
          </p>
        </Section>

        <Section id="directory-api" title="Directory API">
          <p>Unauthenticated JSON at {config.apiUrl}/directory; 100 requests per minute per IP per path, 300 overall (429 with Retry-After).</p>
          <ul className="list-disc space-y-1 pl-5">
            <li>
              <code className="font-mono text-foreground">GET /directory</code>: <code className="font-mono">search</code>,{" "}
              <code className="font-mono">tag</code>, <code className="font-mono">page</code> (1–1000), <code className="font-mono">limit</code> (≤ 50),{" "}
              <code className="font-mono">sort</code> (relevance, recent)
            </li>
            <li>
              <code className="font-mono text-foreground">GET /directory/:slug</code>,{" "}
              <code className="font-mono text-foreground">/directory/:slug/mcp-config</code>,{" "}
              <code className="font-mono text-foreground">/directory/categories</code>, <code className="font-mono text-foreground">/directory/feed.json</code>{" "}
              (JSON Feed 1.1)
            </li>
            <li>
              <code className="font-mono text-foreground">GET /badge/:slug.svg</code>: an embeddable badge with price and health
            </li>
          </ul>
        </Section>

        <Section id="origin" title="Verify gateway requests">
          <p>
            The gateway signs every request it forwards to a provider&apos;s origin with <code className="font-mono text-foreground">X-Gateway-Signature</code>:
            hex HMAC-SHA256 over method, path (no query), timestamp, nonce and raw body joined by line feeds, keyed with the workspace&apos;s HMAC secret, plus{" "}
            <code className="font-mono">X-Gateway-Timestamp</code> (ms), <code className="font-mono">X-Gateway-Nonce</code> and the static{" "}
            <code className="font-mono">X-Gateway-Secret</code>. Reject missing or mismatched signatures, timestamps older than 30 seconds and repeated nonces
            with 403. Health probes carry <code className="font-mono">X-Hub-Probe: 1</code> so an origin can skip expensive work. The repository&apos;s{" "}
            <code className="font-mono">docs/origin-verification.md</code> has Express, Next.js and Python verifiers with test vectors.
          </p>
        </Section>

        <Section id="webhooks" title="Verify webhooks">
          <p>
            Webhook deliveries are signed with the subscription&apos;s secret: <code className="font-mono text-foreground">X-Webhook-Signature</code> is hex
            HMAC-SHA256 of the timestamp, a dot, and the raw body. Verify the body exactly as received, compare in constant time, reject timestamps outside 5
            minutes, and deduplicate on <code className="font-mono">X-Webhook-Id</code>.
          </p>
          <CodeBlock caption="Node.js" code={webhookVerify} copyLabel="Copy webhook verification" />
          <p>
            Browse the{" "}
            <Link href="/directory" className="font-medium text-accent hover:underline">
              directory
            </Link>{" "}
            to find an API to try.
          </p>
        </Section>
      </div>
    </div>
  );
}
