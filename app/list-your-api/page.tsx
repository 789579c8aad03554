// /list-your-api: "List your L402 API": an operator of a self-hosted L402 gateway submits it to the
// directory (spec 2.5, 4.4) and follows the automated review's live status. `?slug=` opens the
// status of an earlier submission.
import type { Metadata } from "next";
import Link from "next/link";
import { ListApiForm } from "./list-api-form.tsx";

export const metadata: Metadata = {
  title: "List your L402 API",
  description:
    "Run your own L402 gateway? List it in the L402 Hub directory for free: submit it, an automated review checks the L402 flow, and it appears beside hosted APIs.",
};

type PageProps = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ListYourApiPage({ searchParams }: PageProps) {
  const raw = (await searchParams).slug;
  const slug = (Array.isArray(raw) ? raw[0] : raw)?.trim() || undefined;
  return (
    <div className="mx-auto max-w-2xl px-4 pt-10 sm:px-6 sm:pt-14">
      <nav aria-label="Breadcrumb" className="text-sm text-muted">
        <ol className="flex items-center gap-2">
          <li>
            <Link href="/directory" className="hover:text-foreground">
              Directory
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="text-foreground">
            List your L402 API
          </li>
        </ol>
      </nav>
      <header className="mt-6">
        <h1 className="text-3xl font-semibold tracking-tight">List your L402 API</h1>
        <p className="mt-3 leading-7 text-muted">
          Run your own L402 gateway? List it in the directory beside the APIs hosted here, free during the beta. An automated review calls your gateway over
          HTTPS, checks that priced endpoints answer 402 with a payable invoice at the price you declare and that a paid call returns a real answer, and e-mails
          you the result. Once approved, your API is marked as independently operated and checked for health like every other; a gateway unreachable for a day
          is hidden until it is back.
        </p>
      </header>
      <div className="mt-8">
        <ListApiForm initialSlug={slug} />
      </div>
    </div>
  );
}
