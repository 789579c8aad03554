// HUB_WALLET, the MCP server's wallet setting (docs/discovery.md, docs/sdk.md):
//   dev                                   this install's dev node, through HUB_DEV_WALLET_URL
//   nostr+walletconnect://<pubkey>?relay=…&secret=…   NWC (NIP-47)
//   lnbits+https://<admin key>@<host>[/path]          LNbits
//   lnd+https://<macaroon hex>@<host>:<port>          LND REST (admin or a pay-capable macaroon)
//   phoenixd+http://:<http-password>@<host>:<port>    phoenixd
// Unset or the config's placeholder: no wallet (free tools still work; paid ones say what to set).
import WebSocket from "ws";
import { devWallet, lnbitsWallet, lndRestWallet, nwcWallet, phoenixdWallet, NWC_URI_SCHEME, type L402Wallet } from "../client.ts";

/** Builds the wallet HUB_WALLET names; null when none is configured; throws on a malformed setting. */
export function walletFromEnv(env: Record<string, string | undefined>): L402Wallet | null {
  const setting = env.HUB_WALLET?.trim() ?? "";
  if (setting === "" || setting.includes("<")) return null;
  if (setting === "dev") {
    const url = env.HUB_DEV_WALLET_URL?.trim();
    if (!url) throw new Error("HUB_WALLET=dev needs HUB_DEV_WALLET_URL (the install's /api/dev/lightning/pay address)");
    return devWallet({ url });
  }
  if (setting.toLowerCase().startsWith(NWC_URI_SCHEME)) return nwcWallet({ connection: setting, WebSocket });
  const match = /^(lnbits|lnd|phoenixd)\+(https?:\/\/.*)$/i.exec(setting);
  if (!match)
    throw new Error(
      "HUB_WALLET must be dev, a nostr+walletconnect:// string, or lnbits+https://, lnd+https://, phoenixd+http:// (see the @l402-hub/sdk README)",
    );
  const url = new URL(match[2]);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const base = url.toString().replace(/\/+$/, "");
  switch (match[1].toLowerCase()) {
    case "lnbits":
      if (!user) throw new Error("HUB_WALLET lnbits+https://<admin key>@host: the admin key is missing");
      return lnbitsWallet({ url: base, adminKey: user });
    case "lnd":
      if (!/^[0-9a-fA-F]+$/.test(user)) throw new Error("HUB_WALLET lnd+https://<macaroon hex>@host:port: the macaroon must be hex");
      return lndRestWallet({ url: base, macaroonHex: user });
    default:
      if (!password) throw new Error("HUB_WALLET phoenixd+http://:<password>@host:port: the password is missing");
      return phoenixdWallet({ url: base, password });
  }
}
