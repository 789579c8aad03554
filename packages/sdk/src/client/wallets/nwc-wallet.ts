// Nostr Wallet Connect (NIP-47, https://github.com/nostr-protocol/nips/blob/master/47.md) as a payer:
// `pay_invoice {invoice}` -> `{preimage, fees_paid}`. The request (kind 23194, `p` = wallet) is
// encrypted with NIP-44 v2 when the wallet's info event (kind 13194) offers it in its `encryption`
// tag, else NIP-04 (wallets from before the tag); the answer is kind 23195 with `e` = request id.
// Browser-safe: nostr-tools over the global WebSocket (Node 20 callers pass `ws`).
import { AbstractRelay } from "nostr-tools/abstract-relay";
import * as nip04 from "nostr-tools/nip04";
import * as nip44 from "nostr-tools/nip44";
import { finalizeEvent, verifyEvent, type NostrEvent } from "nostr-tools/pure";
import { hexToBytes } from "nostr-tools/utils";
import { NWC_URI_SCHEME, parseNwcConnectionUri } from "./nwc-uri.ts";
import { normalizePreimage, type L402Wallet } from "../wallet.ts";

export { NWC_URI_SCHEME };

/** A parsed connection string. */
export type NwcConnectionString = { walletPubkey: string; relayUrls: string[]; secretHex: string };

/**
 * Parses `nostr+walletconnect://<wallet pubkey>?relay=<wss url>&secret=<hex>` with the platform's
 * own rules (./nwc-uri.ts); throws naming the faulty part, never echoing the secret.
 */
export function parseNwcConnectionString(uri: string): NwcConnectionString {
  try {
    const { walletPubkey, relayUrls, secretHex } = parseNwcConnectionUri(uri);
    return { walletPubkey, relayUrls, secretHex };
  } catch (err) {
    throw new Error(`nwc: the connection string ${(err as Error).message}`, { cause: err });
  }
}

export type NwcWalletOptions = {
  /** The wallet's connection string (`nostr+walletconnect://…`). */
  connection: string;
  /** A WebSocket constructor; default the global one (browsers, Node 22+). Node 20: `import WebSocket from "ws"`. */
  WebSocket?: unknown;
  /** How long to wait for the wallet's answer (default 60 s). */
  timeoutMs?: number;
};

type Encryption = "nip44_v2" | "nip04";

/** The wallet's scheme from its info event: nip44_v2 when offered, nip04 when there is no tag. */
function chooseEncryption(info: NostrEvent | null): Encryption {
  const tag = info?.tags.find((t) => t[0] === "encryption");
  if (!tag) return "nip04";
  const offered = (tag[1] ?? "").split(/\s+/);
  if (offered.includes("nip44_v2")) return "nip44_v2";
  if (offered.includes("nip04")) return "nip04";
  throw new Error(`nwc: the wallet offers no encryption we speak (${tag[1] ?? "none"})`);
}

/** A wallet paying through a NIP-47 wallet service. */
export function nwcWallet(options: NwcWalletOptions): L402Wallet & { close(): void } {
  const connection = parseNwcConnectionString(options.connection);
  const secret = hexToBytes(connection.secretHex);
  const timeoutMs = options.timeoutMs ?? 60_000;
  let relay: Promise<AbstractRelay> | null = null;
  let encryption: Promise<Encryption> | null = null;

  function connect(): Promise<AbstractRelay> {
    relay ??= AbstractRelay.connect(connection.relayUrls[0], {
      verifyEvent,
      websocketImplementation: (options.WebSocket ?? globalThis.WebSocket) as typeof WebSocket,
    }).catch((err: unknown) => {
      relay = null;
      throw new Error(`nwc: cannot reach the relay: ${(err as Error).message}`);
    });
    return relay;
  }

  /** Reads the info event once (up to end of stored events) to pick the encryption. */
  function negotiate(r: AbstractRelay): Promise<Encryption> {
    encryption ??= new Promise<NostrEvent | null>((resolve) => {
      let info: NostrEvent | null = null;
      const timer = setTimeout(() => finish(), 5_000);
      const sub = r.subscribe([{ kinds: [13194], authors: [connection.walletPubkey], limit: 1 }], {
        onevent: (event) => void (info = event),
        oneose: () => finish(),
      });
      function finish() {
        clearTimeout(timer);
        sub.close();
        resolve(info);
      }
    }).then(chooseEncryption, (err: unknown) => {
      encryption = null;
      throw err;
    });
    return encryption;
  }

  async function request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await connect();
    const scheme = await negotiate(r);
    const plaintext = JSON.stringify({ method, params });
    const content =
      scheme === "nip44_v2"
        ? nip44.encrypt(plaintext, nip44.getConversationKey(secret, connection.walletPubkey))
        : nip04.encrypt(secret, connection.walletPubkey, plaintext);
    const event = finalizeEvent(
      {
        kind: 23194,
        created_at: Math.floor(Date.now() / 1000),
        tags: [
          ["p", connection.walletPubkey],
          ...(scheme === "nip44_v2" ? [["encryption", "nip44_v2"]] : []),
          ["expiration", String(Math.floor((Date.now() + timeoutMs) / 1000))],
        ],
        content,
      },
      secret,
    );
    const answer = new Promise<NostrEvent>((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.close();
        reject(new Error(`nwc: no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const sub = r.subscribe([{ kinds: [23195], authors: [connection.walletPubkey], "#e": [event.id] }], {
        onevent: (response) => {
          clearTimeout(timer);
          sub.close();
          resolve(response);
        },
      });
    });
    await r.publish(event);
    const response = await answer;
    let decoded: { result_type?: string; error?: { code?: string; message?: string } | null; result?: Record<string, unknown> | null };
    try {
      const text =
        scheme === "nip44_v2"
          ? nip44.decrypt(response.content, nip44.getConversationKey(secret, connection.walletPubkey))
          : nip04.decrypt(secret, connection.walletPubkey, response.content);
      decoded = JSON.parse(text) as typeof decoded;
    } catch {
      throw new Error("nwc: the wallet's answer could not be decrypted or read");
    }
    if (decoded.error) throw new Error(`nwc: ${decoded.error.code ?? "ERROR"} ${decoded.error.message ?? ""}`.trim());
    if (!decoded.result || typeof decoded.result !== "object") throw new Error(`nwc: the wallet answered ${method} without a result`);
    return decoded.result;
  }

  return {
    name: "nwc",
    async pay({ invoice }) {
      const result = await request("pay_invoice", { invoice });
      const fees = typeof result.fees_paid === "number" ? Math.ceil(result.fees_paid / 1000) : undefined;
      return { preimage: normalizePreimage(result.preimage, "nwc"), ...(fees !== undefined ? { feeSats: fees } : {}) };
    },
    close() {
      void relay?.then((r) => r.close()).catch(() => undefined);
      relay = null;
    },
  };
}
