// The save-time half of the wallet address rules: before PUT /wallet connects to anything, every
// address the credentials name (LND's restUrl, LNbits' and phoenixd's url, each NWC relay) must
// resolve only to addresses the policy allows, like a webhook URL. The connect-time half is the
// pinned dispatcher and socket connector every backend uses (lib/lightning/wallet-network.ts), which
// also catches a DNS answer that changes after this check.
import { AppError } from "@/lib/errors/index.ts";
import { parseNwcConnectionUri, type WalletCredentials } from "@/lib/lightning/credentials.ts";
import type { TargetPolicy } from "@/lib/lightning/wallet-network.ts";
import { checkTargetUrl } from "@/lib/origin/ssrf.ts";

/** Each address the wallet would be reached at, with the request field that holds it. */
function walletTargets(credentials: WalletCredentials): { field: string; url: string }[] {
  switch (credentials.type) {
    case "dev":
      return [];
    case "lnd":
      return [{ field: "restUrl", url: credentials.restUrl }];
    case "lnbits":
    case "phoenixd":
      return [{ field: "url", url: credentials.url }];
    case "nwc":
      return parseNwcConnectionUri(credentials.connectionUri).relayUrls.map((url) => ({ field: "connectionUri", url }));
  }
}

/**
 * 422 naming the field and the rule (`blocked_address`, `unresolvable_host`) when an address of the
 * credentials is refused; the message names the host and address, never a secret of the URI.
 */
export async function assertWalletTargets(credentials: WalletCredentials, policy: TargetPolicy): Promise<void> {
  for (const { field, url } of walletTargets(credentials)) {
    // The schema already decided the scheme (https, wss, or plain on localhost); judge the address.
    const target = new URL(url);
    if (target.protocol === "wss:") target.protocol = "https:";
    if (target.protocol === "ws:") target.protocol = "http:";
    const problem = await checkTargetUrl(target.toString(), policy, { requireHttps: false });
    if (!problem) continue;
    const message = field === "connectionUri" ? `relay ${problem.message}` : problem.message;
    throw new AppError("validation_failed", `Invalid request: ${field}: ${message} (rule ${problem.rule})`, {
      fields: [{ field, message, rule: problem.rule }],
    });
  }
}
