// What each wallet type asks for in the dashboard: its fields (named as PUT /wallet takes them,
// validated there by lib/lightning/credentials.ts) with one line on where to find each value.
import type { WalletType } from "@/lib/wallets/schemas.ts";

export type WalletField = {
  name: string;
  label: string;
  /** Where the provider finds the value (one line). */
  help: string;
  kind: "text" | "url" | "secret" | "multiline";
  optional?: boolean;
  placeholder?: string;
};

export type WalletForm = { type: WalletType; title: string; summary: string; fields: WalletField[] };

export const walletForms: readonly WalletForm[] = [
  {
    type: "dev",
    title: "Dev node",
    summary: "The built-in regtest node of this install: invoices are paid with fake sats from the dev wallet. For trying things out, never for real money.",
    fields: [],
  },
  {
    type: "lnd",
    title: "LND (REST)",
    summary: "Your own LND node through its REST API, with a macaroon that can only create and read invoices.",
    fields: [
      {
        name: "restUrl",
        label: "REST URL",
        help: "The node's restlisten address (lnd.conf, default port 8080), reachable from this server over https.",
        kind: "url",
        placeholder: "https://mynode.example.com:8080",
      },
      {
        name: "macaroonHex",
        label: "Invoice macaroon (hex)",
        help: "Run `xxd -ps -u -c 1000 ~/.lnd/data/chain/bitcoin/mainnet/invoice.macaroon` on the node and paste the output.",
        kind: "secret",
      },
      {
        name: "tlsCertPem",
        label: "TLS certificate (optional)",
        help: "Only for a self-signed node: paste ~/.lnd/tls.cert (starts with -----BEGIN CERTIFICATE-----).",
        kind: "multiline",
        optional: true,
        placeholder: "-----BEGIN CERTIFICATE-----",
      },
    ],
  },
  {
    type: "nwc",
    title: "Nostr Wallet Connect",
    summary: "Any NWC wallet (Alby Hub, Mutiny-style services, …) through a connection it generates for this app.",
    fields: [
      {
        name: "connectionUri",
        label: "Connection URI",
        help: "In your wallet: Connections (or Apps) → add a connection with the make_invoice and lookup_invoice permissions, then copy the nostr+walletconnect:// secret.",
        kind: "secret",
        placeholder: "nostr+walletconnect://…",
      },
    ],
  },
  {
    type: "lnbits",
    title: "LNbits",
    summary: "A wallet on an LNbits instance, with its invoice key (never the admin key: receiving needs no spending right).",
    fields: [
      {
        name: "url",
        label: "Instance URL",
        help: "The address you open LNbits at, including any path prefix.",
        kind: "url",
        placeholder: "https://legend.lnbits.com",
      },
      {
        name: "invoiceKey",
        label: "Invoice/read key",
        help: "In the wallet: the “API info” (or “Node URL, API keys and API docs”) panel → Invoice/read key, 32 hex characters.",
        kind: "secret",
      },
    ],
  },
  {
    type: "phoenixd",
    title: "phoenixd",
    summary: "A phoenixd server (ACINQ's headless Phoenix), through its HTTP API.",
    fields: [
      {
        name: "url",
        label: "API URL",
        help: "Where phoenixd's HTTP API listens (http-bind-port, default 9740), over https unless on this machine.",
        kind: "url",
        placeholder: "https://phoenixd.example.com",
      },
      {
        name: "password",
        label: "HTTP password",
        help: "From ~/.phoenix/phoenix.conf: prefer http-password-limited-access (it cannot send payments).",
        kind: "secret",
      },
    ],
  },
];

/** The wallet body PUT /wallet takes: the type and its non-empty fields (an empty optional field is left out). */
export function walletRequestBody(type: WalletType, values: Record<string, string>): Record<string, string> {
  const form = walletForms.find((f) => f.type === type);
  const body: Record<string, string> = { type };
  for (const field of form?.fields ?? []) {
    const value = (values[field.name] ?? "").trim();
    if (value !== "" || !field.optional) body[field.name] = value;
  }
  return body;
}

/** The capacity monitor's reasons in words (docs/webhooks.md, node.capacity_changed). */
export const capacityReasonText: Record<string, string> = {
  no_channels: "The node has no channels: it cannot receive payments until one is opened.",
  peers_offline: "No channel peer is online: payments to the node fail until a peer reconnects.",
  receiving_full: "Almost no inbound liquidity is left: the node cannot receive even a modest payment.",
  receiving_low: "Inbound liquidity is low: larger payments may fail. Open a channel or move funds out to receive more.",
};
