"use client";
// "Import from OpenAPI": paste a document (or pick a .json file, read in the browser) and POST it
// to /endpoints/import. All operations or none; with "skip existing" the ones already here are left
// alone and listed. A refused document lists each failing operation with its fields.
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type ChangeEvent, type FormEvent } from "react";
import type { ImportResponse } from "@/lib/endpoints/import-openapi.ts";
import { ApiError, apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";

type Problem = { operation: string; fields: { field: string; message: string }[] };
type Outcome = { kind: "imported"; result: ImportResponse } | { kind: "refused"; message: string; problems: Problem[]; existing: string[] };

export function ImportPanel({ tenantId }: { tenantId: string }) {
  const toast = useToast();
  const router = useRouter();
  const [text, setText] = useState("");
  const [skipExisting, setSkipExisting] = useState(true);
  const [parseError, setParseError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const run = useMutation({
    mutationFn: (document: unknown) =>
      apiFetch<ImportResponse>(`/tenants/${tenantId}/endpoints/import${skipExisting ? "?existing=skip" : ""}`, { method: "POST", body: document }),
    onMutate: () => setOutcome(null),
    onSuccess: (result) => {
      setOutcome({ kind: "imported", result });
      toast.success(`Imported ${result.endpoints.length} endpoint${result.endpoints.length === 1 ? "" : "s"}`);
      router.refresh();
    },
    onError: (err) => {
      if (!(err instanceof ApiError) || (err.status !== 422 && err.status !== 409)) return toast.error(err.message);
      const operations = (err.details as { operations?: unknown } | undefined)?.operations;
      const list = Array.isArray(operations) ? operations : [];
      setOutcome({
        kind: "refused",
        message: Object.keys(err.fields).length
          ? `${err.message} (${Object.entries(err.fields)
              .map(([f, m]) => `${f}: ${m}`)
              .join("; ")})`
          : err.message,
        problems: list.filter((o): o is Problem => typeof o === "object" && o !== null && "operation" in o),
        existing: list.filter((o): o is string => typeof o === "string"),
      });
    },
  });

  async function pickFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) {
      setText(await file.text());
      setParseError(null);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (err) {
      setParseError(`is not valid JSON: ${(err as Error).message}`);
      return;
    }
    setParseError(null);
    run.mutate(document);
  }

  return (
    <section aria-labelledby="import-heading" className="card flex flex-col gap-4">
      <div>
        <h2 id="import-heading" className="text-lg font-semibold">
          Import from OpenAPI
        </h2>
        <p className="mt-1 text-sm text-muted">
          Every GET, POST, PUT, PATCH and DELETE operation of an OpenAPI 3 document (JSON) becomes an endpoint, with its parameters and examples. Pricing comes
          from an <span className="font-mono">x-l402-pricing</span> extension per operation, e.g.{" "}
          <span className="font-mono">{'{"model": "per_request", "priceSats": 10}'}</span>; without one an endpoint is free until you price it here.
        </p>
      </div>
      <form onSubmit={submit} noValidate className="flex flex-col gap-3">
        <Field
          id="openapi-document"
          label="OpenAPI document (JSON)"
          error={parseError ?? undefined}
          hint="Paste the document, or choose a .json file below (read in your browser). YAML: convert it to JSON first."
        >
          {(control) => (
            <textarea
              {...control}
              rows={8}
              className="input-field font-mono text-xs"
              value={text}
              placeholder='{"openapi": "3.1.0", "paths": { … }}'
              onChange={(e) => {
                setText(e.target.value);
                setParseError(null);
              }}
              spellCheck={false}
            />
          )}
        </Field>
        <div className="flex flex-wrap items-center gap-4">
          <label className="text-sm">
            <span className="sr-only">OpenAPI file</span>
            <input
              type="file"
              accept="application/json,.json"
              onChange={pickFile}
              className="text-sm file:mr-3 file:rounded-lg file:border file:border-line-strong file:bg-surface file:px-3 file:py-1.5 file:text-sm"
            />
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={skipExisting} onChange={(e) => setSkipExisting(e.target.checked)} />
            Skip endpoints that already exist
          </label>
        </div>
        <div>
          <button type="submit" className="btn-primary" disabled={run.isPending || text.trim() === ""}>
            {run.isPending ? "Importing…" : "Import"}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {outcome?.kind === "imported" ? (
          <div role="status" aria-label="Import result" className="rounded-lg border border-success/40 bg-success-soft px-4 py-3 text-sm">
            <p className="font-medium text-success">
              Created {outcome.result.endpoints.length}, skipped {outcome.result.skipped.length}
            </p>
            {outcome.result.endpoints.length ? (
              <ul className="mt-2 list-disc pl-5">
                {outcome.result.endpoints.map((e) => (
                  <li key={e.id}>
                    Created{" "}
                    <span className="font-mono">
                      {e.method} {e.path}
                    </span>
                  </li>
                ))}
              </ul>
            ) : null}
            {outcome.result.skipped.length ? (
              <ul className="mt-2 list-disc pl-5 text-muted">
                {outcome.result.skipped.map((op) => (
                  <li key={op}>
                    Skipped <span className="font-mono">{op}</span> (already exists, left unchanged)
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : outcome?.kind === "refused" ? (
          <div role="alert" aria-label="Import refused" className="rounded-lg border border-danger/40 bg-danger-soft px-4 py-3 text-sm">
            <p className="font-medium text-danger">Nothing was imported</p>
            {outcome.problems.length ? (
              <ul className="mt-2 list-disc pl-5">
                {outcome.problems.map((p) => (
                  <li key={p.operation}>
                    <span className="font-mono">{p.operation}</span>: {p.fields.map((f) => `${f.field} ${f.message}`).join("; ")}
                  </li>
                ))}
              </ul>
            ) : outcome.existing.length ? (
              <p className="mt-1">
                Already in this workspace: <span className="font-mono">{outcome.existing.join(", ")}</span>. Tick “Skip endpoints that already exist” to import
                the rest.
              </p>
            ) : (
              <p className="mt-1">{outcome.message}</p>
            )}
          </div>
        ) : null}
      </div>
    </section>
  );
}
