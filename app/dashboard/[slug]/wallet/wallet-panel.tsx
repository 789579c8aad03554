"use client";
// The wallet's state and the connect form (PUT /wallet: the server creates a 1-sat test invoice
// before storing anything, so a wallet that cannot invoice is refused with the reason under the
// field). Replacing and disconnecting (DELETE /wallet) ask for confirmation first.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { WalletResponse, WalletType } from "@/lib/wallets/schemas.ts";
import { ApiError, apiFetch, type FieldErrors } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";
import { capacityReasonText, walletForms, walletRequestBody } from "./wallet-forms.ts";

type Props = { tenantId: string; initialWallet: WalletResponse | null; isOwner: boolean; devNodeOn: boolean };

const when = (iso: string | null) => (iso ? <time dateTime={iso}>{new Date(iso).toUTCString()}</time> : "never");

export function WalletPanel({ tenantId, initialWallet, isOwner, devNodeOn }: Props) {
  const toast = useToast();
  const router = useRouter();
  const queryClient = useQueryClient();
  const queryKey = ["wallet", tenantId];
  const { data: wallet } = useQuery({
    queryKey,
    queryFn: async () => {
      try {
        return await apiFetch<WalletResponse>(`/tenants/${tenantId}/wallet`);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    initialData: initialWallet,
  });
  const [type, setType] = useState<WalletType>(wallet?.type ?? (devNodeOn ? "dev" : "lnd"));
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirmReplace, setConfirmReplace] = useState(false);
  const [confirmDisconnect, setConfirmDisconnect] = useState(false);
  const form = walletForms.find((f) => f.type === type)!;

  const connect = useApiMutation({
    mutationFn: () => apiFetch<WalletResponse>(`/tenants/${tenantId}/wallet`, { method: "PUT", body: walletRequestBody(type, values) }),
    onSuccess: (connected) => {
      queryClient.setQueryData(queryKey, connected);
      setValues({});
      setConfirmReplace(false);
      toast.success(`Wallet connected: ${connected.label}`);
      router.refresh();
    },
    onError: () => setConfirmReplace(false),
    onFieldErrors: setErrors,
  });

  const disconnect = useApiMutation({
    mutationFn: () => apiFetch<null>(`/tenants/${tenantId}/wallet`, { method: "DELETE" }),
    onSuccess: () => {
      queryClient.setQueryData(queryKey, null);
      setConfirmDisconnect(false);
      toast.success("Wallet disconnected");
      router.refresh();
    },
    onError: () => setConfirmDisconnect(false),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    if (wallet && !confirmReplace) return setConfirmReplace(true);
    connect.mutate();
  }

  const ownerOnly = isOwner ? null : <p className="text-sm text-muted">Only workspace owners can connect, replace or disconnect the wallet.</p>;
  const degraded = wallet?.capacity?.status === "degraded" ? wallet.capacity : null;

  return (
    <>
      <section aria-labelledby="wallet-state-heading" className="card flex flex-col gap-4">
        <h2 id="wallet-state-heading" className="text-lg font-semibold">
          Connected wallet
        </h2>
        {wallet ? (
          <>
            <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
              <dt className="text-muted">Wallet</dt>
              <dd className="font-medium">{wallet.label}</dd>
              <dt className="text-muted">Connected since</dt>
              <dd>{when(wallet.connectedAt)}</dd>
              <dt className="text-muted">Node public key</dt>
              <dd className="font-mono text-xs break-all">{wallet.nodePubkey ?? "not reported by this wallet"}</dd>
              <dt className="text-muted">Last invoice issued</dt>
              <dd>{when(wallet.lastInvoiceAt)}</dd>
              <dt className="text-muted">Node capacity</dt>
              <dd>
                {wallet.capacity ? (
                  <>
                    {wallet.capacity.status === "ok" ? "OK" : "Degraded"} · checked {when(wallet.capacity.checkedAt)}
                  </>
                ) : wallet.type === "dev" || wallet.type === "lnd" ? (
                  "Not checked yet (every 5 minutes)"
                ) : (
                  "This wallet type does not report channel capacity"
                )}
              </dd>
            </dl>
            {degraded ? (
              <div role="note" aria-label="Capacity warning" className="rounded-lg border border-danger/40 bg-danger-soft px-4 py-3 text-sm">
                <p className="font-medium text-danger">Your node may not be able to receive payments</p>
                <p className="mt-1">{capacityReasonText[degraded.reason ?? ""] ?? "The node reported a capacity problem."}</p>
              </div>
            ) : null}
            {isOwner ? (
              confirmDisconnect ? (
                <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Confirm disconnection">
                  <span className="text-sm">Disconnect? Priced endpoints answer 503 until you connect a wallet again.</span>
                  <button type="button" className="btn-danger" onClick={() => disconnect.mutate()} disabled={disconnect.isPending} autoFocus>
                    {disconnect.isPending ? "Disconnecting…" : "Yes, disconnect"}
                  </button>
                  <button type="button" className="btn-secondary" onClick={() => setConfirmDisconnect(false)} disabled={disconnect.isPending}>
                    Cancel
                  </button>
                </div>
              ) : (
                <div>
                  <button type="button" className="btn-danger" onClick={() => setConfirmDisconnect(true)}>
                    Disconnect wallet
                  </button>
                </div>
              )
            ) : (
              ownerOnly
            )}
          </>
        ) : (
          <p className="text-sm text-muted">No wallet connected yet: priced endpoints answer 503 until one is.</p>
        )}
      </section>

      <section aria-labelledby="connect-heading" className="card flex flex-col gap-4">
        <div>
          <h2 id="connect-heading" className="text-lg font-semibold">
            {wallet ? "Replace the wallet" : "Connect a wallet"}
          </h2>
          <p className="mt-1 text-sm text-muted">
            We create a 1-sat test invoice through the wallet first; only a wallet that can invoice is saved. Credentials are encrypted and never shown again.
          </p>
        </div>
        {ownerOnly}
        <form onSubmit={submit} noValidate>
          <fieldset disabled={!isOwner} className="flex flex-col gap-4">
            <fieldset>
              <legend className="text-sm font-medium">Wallet type</legend>
              <div className="mt-2 grid gap-2 sm:grid-cols-2">
                {walletForms.map((option) => {
                  const off = option.type === "dev" && !devNodeOn;
                  return (
                    <label
                      key={option.type}
                      className={`flex cursor-pointer gap-3 rounded-lg border px-3 py-2.5 text-sm has-[:checked]:border-accent has-[:checked]:bg-accent-soft has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-accent-ring ${off ? "cursor-not-allowed border-line opacity-60" : "border-line-strong"}`}
                    >
                      <input
                        type="radio"
                        name="wallet-type"
                        value={option.type}
                        checked={type === option.type}
                        disabled={off}
                        onChange={() => {
                          setType(option.type);
                          setErrors({});
                          setConfirmReplace(false);
                        }}
                        className="mt-1"
                      />
                      <span>
                        <span className="font-medium">{option.title}</span>
                        <span className="mt-0.5 block text-xs text-muted">{off ? "Off on this install (LIGHTNING_DEV_NODE=false)." : option.summary}</span>
                      </span>
                    </label>
                  );
                })}
              </div>
              {errors.type ? (
                <p className="mt-2 text-sm text-danger" role="alert">
                  {errors.type}
                </p>
              ) : null}
            </fieldset>
            {form.fields.map((field) => (
              <Field key={`${type}-${field.name}`} id={`wallet-${field.name}`} label={field.label} hint={field.help} error={errors[field.name]}>
                {(control) =>
                  field.kind === "multiline" ? (
                    <textarea
                      {...control}
                      rows={4}
                      className="input-field font-mono text-xs"
                      placeholder={field.placeholder}
                      value={values[field.name] ?? ""}
                      onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
                      spellCheck={false}
                    />
                  ) : (
                    <input
                      {...control}
                      type={field.kind === "secret" ? "password" : field.kind === "url" ? "url" : "text"}
                      inputMode={field.kind === "url" ? "url" : undefined}
                      className="input-field font-mono"
                      placeholder={field.placeholder}
                      value={values[field.name] ?? ""}
                      onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
                      autoComplete="off"
                      spellCheck={false}
                    />
                  )
                }
              </Field>
            ))}
            {confirmReplace && wallet ? (
              <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Confirm replacement">
                <span className="text-sm">
                  Replace {wallet.label}? New invoices come from the new wallet at once; invoices already issued stay payable to the old one.
                </span>
                <button type="submit" className="btn-danger" disabled={connect.isPending} autoFocus>
                  {connect.isPending ? "Testing…" : "Yes, replace"}
                </button>
                <button type="button" className="btn-secondary" onClick={() => setConfirmReplace(false)} disabled={connect.isPending}>
                  Cancel
                </button>
              </div>
            ) : (
              <div>
                <button type="submit" className="btn-primary" disabled={connect.isPending}>
                  {connect.isPending ? "Creating a test invoice…" : wallet ? "Test and replace" : "Test and connect"}
                </button>
              </div>
            )}
          </fieldset>
        </form>
      </section>
    </>
  );
}
