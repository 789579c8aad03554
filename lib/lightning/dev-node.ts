// The dev Lightning node: the stand-in for the Lightning network on dev machines and in tests.
// It signs REAL regtest BOLT11 invoices (prefix `lnbcrt`) with a node key, keeps the preimages in
// the DevNodeInvoice table, and settles invoices through `pay`, which the browser's WebLN shim, the
// SDK's dev wallet and the tests use in place of a real payment.
//
// The node key is derived from APP_SECRET (HKDF purpose "dev-lightning-node"), so it is persisted
// through APP_SECRET: every process of one install (web, gateway, worker) signs with the same key,
// and rotating APP_SECRET gives the dev node a new identity (old invoices stop being payable).
import { createHash, randomBytes } from "node:crypto";
import { decode as decodeBolt11, encode as encodeBolt11, sign as signBolt11 } from "bolt11";
import { getPublicKey, utils as secpUtils } from "@noble/secp256k1";
import { deriveKey } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { WalletError, type CreatedInvoice, type CreateInvoiceRequest, type InvoiceLookup, type WalletBackend } from "./types.ts";

/** bitcoinjs-style network parameters for regtest; bolt11 derives the `lnbcrt` prefix from them. */
const REGTEST = { bech32: "bcrt", pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };

/** BOLT11 caps a description at 639 UTF-8 bytes (1023 five-bit words). */
const MAX_DESCRIPTION_BYTES = 639;
/** 21 million BTC in sats: anything larger is a caller bug, not a payment. */
const MAX_AMOUNT_SATS = 2_100_000_000_000_000;
/** One year; the BOLT11 expiry field allows more, but nothing we sell lives that long unpaid. */
const MAX_EXPIRY_SECONDS = 365 * 24 * 3600;
/** Longer strings are not invoices we issued (ours are ~400 chars); refuse before decoding. */
const MAX_INVOICE_LENGTH = 4096;
/** BOLT11's default final CLTV delta; stated explicitly so decoders need not assume it. */
const MIN_FINAL_CLTV_EXPIRY = 18;

const HEX_32_BYTES = /^[0-9a-f]{64}$/i;

/** What a dev node needs: where to keep invoices, the install's secret, and optionally a clock. */
export type DevNodeOptions = {
  prisma: PrismaClient;
  /** APP_SECRET: the node key is derived from it, so all processes of an install share one node. */
  appSecret: string;
  /** Injectable clock for invoice timestamps, expiry and settlement (tests). */
  now?: () => Date;
};

/** Why a dev payment was refused; stable codes so the WebLN shim and SDK can show a precise message. */
export type DevPaymentErrorCode = "invalid_invoice" | "unknown_invoice" | "expired" | "already_paid";

/** A refused dev payment. Thrown by DevLightningNode.pay; `code` says which rule refused it. */
export class DevPaymentError extends Error {
  constructor(
    readonly code: DevPaymentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "DevPaymentError";
  }
}

/** What a successful dev payment returns: the preimage is the proof the client presents to the gateway. */
export type DevPayment = { preimage: string; paymentHash: string; amountSats: number };

/** A simulated channel of the dev node; `remoteBalanceSat` is what the node can still receive through it. */
export type DevChannel = { capacitySat: number; remoteBalanceSat: number; active: boolean };

/** Channel liquidity in the shape the worker's capacity check reads (node.capacity_changed). */
export type DevNodeCapacity = {
  activeChannels: number;
  totalChannels: number;
  receivingCapacitySat: number;
  totalCapacitySat: number;
  peersOnline: number;
};

/** A fresh dev node has one healthy channel (2M sats, half of it receivable), so it reports `ok`. */
const DEFAULT_DEV_CHANNELS: readonly DevChannel[] = [{ capacitySat: 2_000_000, remoteBalanceSat: 1_000_000, active: true }];

/** Derives the node's secp256k1 secret key from APP_SECRET, deterministically. */
function nodeSecretKey(appSecret: string): Uint8Array {
  let key = new Uint8Array(deriveKey(appSecret, "dev-lightning-node"));
  // A 32-byte HKDF output is a valid scalar except with probability ~2^-128; rehash if ever not.
  while (!secpUtils.isValidSecretKey(key)) key = new Uint8Array(createHash("sha256").update(key).digest());
  return key;
}

/** Strips the `lightning:` URI scheme wallets put in QR codes and links, and surrounding spaces. */
function bareInvoice(paymentRequest: string): string {
  const trimmed = paymentRequest.trim();
  return trimmed.toLowerCase().startsWith("lightning:") ? trimmed.slice("lightning:".length) : trimmed;
}

/**
 * The embedded dev Lightning node. `wallet()` is the receive side the gateway uses (the
 * WalletBackend contract); `pay()` is the send side dev wallets and tests use.
 */
export class DevLightningNode {
  /** The node's 33-byte compressed public key (hex); BOLT11 decoders recover it from invoice signatures. */
  readonly nodePubkey: string;

  private readonly prisma: PrismaClient;
  private readonly secretKeyHex: string;
  private readonly now: () => Date;
  private channels: DevChannel[] = DEFAULT_DEV_CHANNELS.map((c) => ({ ...c }));

  constructor(options: DevNodeOptions) {
    this.prisma = options.prisma;
    this.now = options.now ?? (() => new Date());
    const secretKey = nodeSecretKey(options.appSecret);
    this.secretKeyHex = Buffer.from(secretKey).toString("hex");
    this.nodePubkey = Buffer.from(getPublicKey(secretKey, true)).toString("hex");
  }

  /** Issues a signed regtest invoice with a fresh random preimage and records it as open. */
  async createInvoice(request: CreateInvoiceRequest): Promise<CreatedInvoice> {
    const { amountSats, description, expirySeconds } = request;
    if (!Number.isSafeInteger(amountSats) || amountSats < 1 || amountSats > MAX_AMOUNT_SATS) {
      throw new WalletError("rejected", `Invoice amount must be a whole number of sats from 1 to ${MAX_AMOUNT_SATS}`);
    }
    if (!Number.isSafeInteger(expirySeconds) || expirySeconds < 1 || expirySeconds > MAX_EXPIRY_SECONDS) {
      throw new WalletError("rejected", `Invoice expiry must be a whole number of seconds from 1 to ${MAX_EXPIRY_SECONDS}`);
    }
    if (Buffer.byteLength(description, "utf8") > MAX_DESCRIPTION_BYTES) {
      throw new WalletError("rejected", `Invoice description must be at most ${MAX_DESCRIPTION_BYTES} UTF-8 bytes`);
    }

    const preimage = randomBytes(32);
    const paymentHash = createHash("sha256").update(preimage).digest("hex");
    // BOLT11 timestamps are whole seconds; expiry is counted from that second, as payers compute it.
    const timestamp = Math.floor(this.now().getTime() / 1000);
    const expiresAt = new Date((timestamp + expirySeconds) * 1000);

    const unsigned = encodeBolt11(
      {
        network: REGTEST,
        satoshis: amountSats,
        timestamp,
        tags: [
          { tagName: "payment_hash", data: paymentHash },
          // Writers must include a payment secret (BOLT11); it prevents probing by intermediate nodes.
          { tagName: "payment_secret", data: randomBytes(32).toString("hex") },
          { tagName: "description", data: description },
          { tagName: "expire_time", data: expirySeconds },
          { tagName: "min_final_cltv_expiry", data: MIN_FINAL_CLTV_EXPIRY },
          // Mandatory (even) bits only, as LND sets them: var_onion_optin (8) and payment_secret (14).
          {
            tagName: "feature_bits",
            data: { word_length: 4, var_onion_optin: { required: true }, payment_secret: { required: true } },
          },
        ],
      },
      false,
    );
    const paymentRequest = signBolt11(unsigned, this.secretKeyHex).paymentRequest;
    if (!paymentRequest) throw new WalletError("invalid_response", "The BOLT11 encoder returned no payment request");

    await this.prisma.devNodeInvoice.create({
      data: {
        paymentHash,
        preimage: preimage.toString("hex"),
        paymentRequest,
        amountMsat: BigInt(amountSats) * 1000n,
        description,
        expiresAt,
      },
    });
    return { paymentRequest, paymentHash, expiresAt };
  }

  /** Reports an invoice of this node as open, settled or expired; null when the hash is not ours. */
  async lookupInvoice(paymentHash: string): Promise<InvoiceLookup | null> {
    if (!HEX_32_BYTES.test(paymentHash)) return null;
    const row = await this.prisma.devNodeInvoice.findUnique({ where: { paymentHash: paymentHash.toLowerCase() } });
    if (!row) return null;
    const state = row.settledAt ? "settled" : this.now() >= row.expiresAt ? "expired" : "open";
    return {
      paymentHash: row.paymentHash,
      state,
      settledAt: row.settledAt,
      amountSats: Number(row.amountMsat / 1000n),
      preimage: state === "settled" ? row.preimage : null,
    };
  }

  /**
   * Pays an invoice this node issued and returns its preimage. Settlement is one conditional
   * UPDATE (`settledAt IS NULL AND expiresAt > now`), so concurrent pays settle an invoice once.
   */
  async pay(paymentRequest: string): Promise<DevPayment> {
    const invoice = bareInvoice(paymentRequest);
    if (invoice.length === 0 || invoice.length > MAX_INVOICE_LENGTH) {
      throw new DevPaymentError("invalid_invoice", "Not a BOLT11 invoice");
    }
    let decoded: ReturnType<typeof decodeBolt11>;
    try {
      decoded = decodeBolt11(invoice);
    } catch (err) {
      throw new DevPaymentError("invalid_invoice", `Not a valid BOLT11 invoice: ${(err as Error).message}`);
    }
    const paymentHash = decoded.tagsObject.payment_hash;
    if (!paymentHash || !HEX_32_BYTES.test(paymentHash)) {
      throw new DevPaymentError("invalid_invoice", "The invoice has no payment hash");
    }
    // The decoder recovered the signer's key from the signature: only our own invoices are payable here.
    if (decoded.network?.bech32 !== REGTEST.bech32 || decoded.payeeNodeKey !== this.nodePubkey) {
      throw new DevPaymentError("unknown_invoice", "The invoice was not issued by this dev node");
    }
    const row = await this.prisma.devNodeInvoice.findUnique({ where: { paymentHash: paymentHash.toLowerCase() } });
    if (!row || row.paymentRequest.toLowerCase() !== invoice.toLowerCase()) {
      throw new DevPaymentError("unknown_invoice", "The invoice was not issued by this dev node");
    }

    const now = this.now();
    const settled = await this.prisma.devNodeInvoice.updateMany({
      where: { paymentHash: row.paymentHash, settledAt: null, expiresAt: { gt: now } },
      data: { settledAt: now },
    });
    if (settled.count !== 1) {
      // Lost the race or the rule: re-read to say which (a paid invoice stays "already paid" after expiry).
      const current = await this.prisma.devNodeInvoice.findUnique({ where: { paymentHash: row.paymentHash } });
      if (current?.settledAt) throw new DevPaymentError("already_paid", "The invoice has already been paid");
      throw new DevPaymentError("expired", "The invoice has expired");
    }
    return { preimage: row.preimage, paymentHash: row.paymentHash, amountSats: Number(row.amountMsat / 1000n) };
  }

  /**
   * Replaces the simulated channels (dev tools and tests), e.g. `[]` for no_channels or a channel
   * with `active: false` for peers_offline; the capacity monitor sees the change on its next check.
   */
  setSimulatedChannels(channels: readonly DevChannel[]): void {
    for (const c of channels) {
      if (
        !Number.isSafeInteger(c.capacitySat) ||
        !Number.isSafeInteger(c.remoteBalanceSat) ||
        c.capacitySat < 0 ||
        c.remoteBalanceSat < 0 ||
        c.remoteBalanceSat > c.capacitySat
      ) {
        throw new RangeError("A dev channel needs whole sats with 0 <= remoteBalanceSat <= capacitySat");
      }
    }
    this.channels = channels.map((c) => ({ ...c }));
  }

  /** Liquidity of the simulated channels, computed the way LND's channel list is read: only active channels can receive. */
  async getCapacity(): Promise<DevNodeCapacity> {
    const active = this.channels.filter((c) => c.active);
    return {
      activeChannels: active.length,
      totalChannels: this.channels.length,
      receivingCapacitySat: active.reduce((sum, c) => sum + c.remoteBalanceSat, 0),
      totalCapacitySat: this.channels.reduce((sum, c) => sum + c.capacitySat, 0),
      // One peer per simulated channel.
      peersOnline: active.length,
    };
  }

  /**
   * The receive-side view the gateway and worker use; it hides `pay`, which no real wallet offers,
   * and adds the optional getCapacity ability (feature-tested by callers).
   */
  wallet(): WalletBackend & { getCapacity(): Promise<DevNodeCapacity> } {
    const backend = {
      type: "dev" as const,
      createInvoice: (request: CreateInvoiceRequest) => this.createInvoice(request),
      lookupInvoice: (paymentHash: string) => this.lookupInvoice(paymentHash),
      getNodePubkey: async () => this.nodePubkey,
      getCapacity: () => this.getCapacity(),
    };
    return backend;
  }
}
