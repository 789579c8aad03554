"use client";
// Create a workspace: the slug is checked live (format and availability, the API's own rules) as
// the user types; submit errors land on their fields, anything else in a toast.
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import type { SlugAvailability } from "@/lib/workspaces/schemas.ts";
import { apiFetch, type FieldErrors } from "./api-client.ts";
import { Field } from "./field.tsx";
import { DescriptionField, parseTagList, TagsField } from "./profile-fields.tsx";
import { useToast } from "./toasts.tsx";
import { useApiMutation } from "./use-api-mutation.ts";

/** A slug suggestion from a name: lowercase, hyphens, at most 63 characters. */
function slugFromName(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/, "");
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

export function CreateWorkspaceForm({ gatewayUrlTemplate }: { gatewayUrlTemplate: string }) {
  const router = useRouter();
  const toast = useToast();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugEdited, setSlugEdited] = useState(false);
  const [description, setDescription] = useState("");
  const [tags, setTags] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const effectiveSlug = slugEdited ? slug : slugFromName(name);
  const checkedSlug = useDebounced(effectiveSlug, 300);

  const availability = useQuery({
    queryKey: ["slug-availability", checkedSlug],
    queryFn: ({ signal }) => apiFetch<SlugAvailability>(`/tenants/slug-availability?slug=${encodeURIComponent(checkedSlug)}`, { signal }),
    enabled: checkedSlug.length > 0,
    staleTime: 5_000,
  });
  const current = availability.data?.slug === effectiveSlug ? availability.data : null;

  const create = useApiMutation({
    mutationFn: () =>
      apiFetch<{ slug: string }>("/tenants", {
        method: "POST",
        body: {
          slug: effectiveSlug,
          name,
          description: description || undefined,
          tags: parseTagList(tags),
        },
      }),
    onSuccess: (tenant) => {
      toast.success("Workspace created");
      router.push(`/dashboard/${tenant.slug}`);
      router.refresh();
    },
    onFieldErrors: setErrors,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    create.mutate();
  }

  const slugStatus =
    effectiveSlug === "" ? null : !current ? (
      <span className="text-xs text-muted" aria-live="polite">
        Checking…
      </span>
    ) : current.available ? (
      <span className="text-xs font-medium text-success" aria-live="polite">
        Available
      </span>
    ) : (
      <span className="text-xs font-medium text-danger" aria-live="polite">
        Not available
      </span>
    );
  const slugError = errors.slug ?? (current && !current.available ? `This slug ${current.reason ?? "is not available"}` : undefined);

  return (
    <form onSubmit={submit} className="flex flex-col gap-5" noValidate>
      <Field id="ws-name" label="Name" error={errors.name} hint="Shown in the directory, e.g. “Acme Weather API”.">
        {(control) => (
          <input {...control} className="input-field" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required autoComplete="off" />
        )}
      </Field>
      <Field
        id="ws-slug"
        label="Slug"
        error={slugError}
        status={slugStatus}
        hint={
          <>
            Your gateway address, permanent: <span className="font-mono">{gatewayUrlTemplate.replace("{slug}", effectiveSlug || "<slug>")}</span>
          </>
        }
      >
        {(control) => (
          <input
            {...control}
            className="input-field font-mono"
            value={effectiveSlug}
            onChange={(e) => {
              setSlugEdited(true);
              setSlug(e.target.value.toLowerCase());
            }}
            maxLength={63}
            required
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <DescriptionField
        id="ws-description"
        value={description}
        onChange={setDescription}
        error={errors.description}
        hint="Optional. One or two sentences for the directory."
      />
      <TagsField id="ws-tags" value={tags} onChange={setTags} errors={errors} hint="Optional. Comma-separated, up to 10, e.g. weather, maps." />
      <div>
        <button type="submit" className="btn-primary" disabled={create.isPending || Boolean(current && !current.available)}>
          {create.isPending ? "Creating…" : "Create workspace"}
        </button>
      </div>
    </form>
  );
}
