// Wallet adapters of the L402 client: each pays a bolt11 invoice and returns the preimage.
export { devWallet, type DevWalletOptions } from "./dev-wallet.ts";
export { lndRestWallet, type LndRestWalletOptions } from "./lnd-rest-wallet.ts";
export { lnbitsWallet, type LnbitsWalletOptions } from "./lnbits-wallet.ts";
export { nwcWallet, parseNwcConnectionString, NWC_URI_SCHEME, type NwcConnectionString, type NwcWalletOptions } from "./nwc-wallet.ts";
export { phoenixdWallet, type PhoenixdWalletOptions } from "./phoenixd-wallet.ts";
export { weblnWallet, type WebLnProviderLike } from "./webln-wallet.ts";
