"use client";
// Members and invitations. Owners invite by e-mail (an existing user joins at once, anyone else
// gets a pending invitation), change roles and remove members, with optimistic updates that roll
// back on error; every member can leave. The server enforces all of it (owners only, one owner kept).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { MemberRole, MembersResponse } from "@/lib/workspaces/schemas.ts";
import { apiFetch, type FieldErrors } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";

type Props = { tenantId: string; initial: MembersResponse; isOwner: boolean; currentUserId: string };

export function MembersPanel({ tenantId, initial, isOwner, currentUserId }: Props) {
  const toast = useToast();
  const router = useRouter();
  const queryClient = useQueryClient();
  const key = ["members", tenantId];
  const members = useQuery({ queryKey: key, queryFn: () => apiFetch<MembersResponse>(`/tenants/${tenantId}/members`), initialData: initial }).data;
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<MemberRole>("member");
  const [errors, setErrors] = useState<FieldErrors>({});

  /** Applies a change to the cached list at once; returns the snapshot to roll back to. */
  async function optimistic(change: (list: MembersResponse) => MembersResponse) {
    await queryClient.cancelQueries({ queryKey: key });
    const previous = queryClient.getQueryData<MembersResponse>(key);
    if (previous) queryClient.setQueryData(key, change(previous));
    return { previous };
  }
  /** Puts the snapshot back after a failed change (useApiMutation shows the error). */
  const rollback = (_err: Error, _vars: unknown, context?: { previous?: MembersResponse }) => {
    if (context?.previous) queryClient.setQueryData(key, context.previous);
  };
  const settle = () => queryClient.invalidateQueries({ queryKey: key });

  const invite = useApiMutation({
    mutationFn: () => apiFetch<{ kind: "member" | "invitation" }>(`/tenants/${tenantId}/members`, { method: "POST", body: { email, role } }),
    onSuccess: (result) => {
      toast.success(result.kind === "member" ? `${email} was added` : `${email} is invited and joins at first sign-in`);
      setEmail("");
      void settle();
    },
    onFieldErrors: setErrors,
  });
  const changeRole = useApiMutation({
    mutationFn: (v: { userId: string; role: MemberRole }) => apiFetch(`/tenants/${tenantId}/members/${v.userId}`, { method: "PATCH", body: { role: v.role } }),
    onMutate: (v) => optimistic((list) => ({ ...list, members: list.members.map((m) => (m.userId === v.userId ? { ...m, role: v.role } : m)) })),
    onError: rollback,
    onSettled: (_d, _e, v) => {
      void settle();
      if (v.userId === currentUserId) router.refresh();
    },
  });
  const remove = useApiMutation({
    mutationFn: (userId: string) => apiFetch(`/tenants/${tenantId}/members/${userId}`, { method: "DELETE" }),
    onMutate: (userId) => optimistic((list) => ({ ...list, members: list.members.filter((m) => m.userId !== userId) })),
    onError: rollback,
    onSuccess: (_d, userId) => {
      if (userId === currentUserId) {
        toast.success("You left the workspace");
        router.push("/dashboard");
        router.refresh();
      }
    },
    onSettled: (_d, _e, userId) => {
      if (userId !== currentUserId) void settle();
    },
  });
  const cancel = useApiMutation({
    mutationFn: (id: string) => apiFetch(`/tenants/${tenantId}/invitations/${id}`, { method: "DELETE" }),
    onMutate: (id) => optimistic((list) => ({ ...list, invitations: list.invitations.filter((i) => i.id !== id) })),
    onError: rollback,
    onSettled: settle,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    invite.mutate();
  }

  return (
    <section aria-labelledby="members-heading" className="card flex flex-col gap-5">
      <div>
        <h2 id="members-heading" className="text-lg font-semibold">
          Members
        </h2>
        <p className="mt-1 text-sm text-muted">Owners manage members, secrets, wallet and keys; members configure and read everything else.</p>
      </div>
      <ul className="divide-y divide-line" aria-label="Members">
        {members.members.map((m) => {
          const label = m.email ?? m.name ?? m.userId;
          const you = m.userId === currentUserId;
          return (
            <li key={m.userId} className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div className="min-w-0">
                <p className="truncate font-medium">
                  {label}
                  {you ? <span className="ml-2 text-xs font-normal text-muted">(you)</span> : null}
                </p>
                {m.email && m.name ? <p className="truncate text-xs text-muted">{m.name}</p> : null}
              </div>
              <div className="flex items-center gap-2">
                {isOwner ? (
                  <>
                    <label className="sr-only" htmlFor={`role-${m.userId}`}>
                      Role of {label}
                    </label>
                    <select
                      id={`role-${m.userId}`}
                      className="input-field w-auto py-1.5"
                      value={m.role}
                      onChange={(e) => changeRole.mutate({ userId: m.userId, role: e.target.value as MemberRole })}
                    >
                      <option value="owner">Owner</option>
                      <option value="member">Member</option>
                    </select>
                  </>
                ) : (
                  <span className="text-sm text-muted">{m.role === "owner" ? "Owner" : "Member"}</span>
                )}
                {isOwner || you ? (
                  <button
                    type="button"
                    className="btn-danger py-1.5"
                    onClick={() => remove.mutate(m.userId)}
                    aria-label={you ? "Leave workspace" : `Remove ${label}`}
                  >
                    {you ? "Leave" : "Remove"}
                  </button>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
      {members.invitations.length ? (
        <div>
          <h3 className="text-sm font-medium">Pending invitations</h3>
          <ul className="mt-2 divide-y divide-line" aria-label="Pending invitations">
            {members.invitations.map((i) => (
              <li key={i.id} className="flex flex-wrap items-center justify-between gap-3 py-2 text-sm">
                <span>
                  {i.email} <span className="text-muted">· {i.role} · joins at first sign-in</span>
                </span>
                {isOwner ? (
                  <button type="button" className="btn-secondary py-1" onClick={() => cancel.mutate(i.id)} aria-label={`Cancel invitation of ${i.email}`}>
                    Cancel
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {isOwner ? (
        <form onSubmit={submit} className="flex flex-col gap-3 border-t border-line pt-4" noValidate aria-label="Invite a member">
          <h3 className="text-sm font-medium">Invite by e-mail</h3>
          <div className="grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-start">
            <Field id="invite-email" label="E-mail" error={errors.email}>
              {(control) => (
                <input {...control} type="email" className="input-field" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
              )}
            </Field>
            <Field id="invite-role" label="Role" error={errors.role}>
              {(control) => (
                <select {...control} className="input-field" value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
                  <option value="member">Member</option>
                  <option value="owner">Owner</option>
                </select>
              )}
            </Field>
            <button type="submit" className="btn-primary sm:mt-6" disabled={invite.isPending || email.trim() === ""}>
              {invite.isPending ? "Inviting…" : "Invite"}
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
