"use client";
// Workspace profile: name, description, tags and the directory listing switch (PATCH /api/tenants/:id).
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { apiFetch, type FieldErrors } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { DescriptionField, parseTagList, TagsField } from "@/app/dashboard/_components/profile-fields.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";

type Profile = { name: string; description: string; tags: string[]; listed: boolean };

export function ProfileForm({ tenantId, initial }: { tenantId: string; initial: Profile }) {
  const toast = useToast();
  const router = useRouter();
  const [name, setName] = useState(initial.name);
  const [description, setDescription] = useState(initial.description);
  const [tags, setTags] = useState(initial.tags.join(", "));
  const [listed, setListed] = useState(initial.listed);
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useApiMutation({
    mutationFn: () =>
      apiFetch<Profile>(`/tenants/${tenantId}`, {
        method: "PATCH",
        body: { name, description, listed, tags: parseTagList(tags) },
      }),
    onSuccess: (saved) => {
      setTags(saved.tags.join(", "));
      toast.success("Profile saved");
      router.refresh();
    },
    onFieldErrors: setErrors,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    save.mutate();
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <Field id="profile-name" label="Name" error={errors.name}>
        {(control) => <input {...control} className="input-field" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />}
      </Field>
      <DescriptionField id="profile-description" value={description} onChange={setDescription} error={errors.description} />
      <TagsField id="profile-tags" value={tags} onChange={setTags} errors={errors} hint="Comma-separated, up to 10." />
      <label className="flex items-start gap-3 text-sm">
        <input type="checkbox" className="mt-0.5 size-4 accent-[var(--accent)]" checked={listed} onChange={(e) => setListed(e.target.checked)} />
        <span>
          <span className="font-medium">List in the public directory</span>
          <span className="block text-muted">Shown once the workspace has an origin, a wallet and an active endpoint.</span>
        </span>
      </label>
      <div>
        <button type="submit" className="btn-primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save profile"}
        </button>
      </div>
    </form>
  );
}
