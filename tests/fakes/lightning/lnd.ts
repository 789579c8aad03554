// A fake LND REST API (grpc-gateway JSON), built from https://lightning.engineering/api-docs/api/lnd/:
//   POST /v1/channels/transactions SendPaymentSync (offchain:write) {payment_request} -> {payment_error, payment_preimage (b64), payment_hash (b64), payment_route}, over `network`
//   POST /v1/invoices            AddInvoice     (invoices:write) {value, memo, expiry} -> {r_hash, payment_request, add_index, payment_addr}
//   GET  /v1/invoice/{r_hash_str} LookupInvoice (invoices:read)  -> Invoice {state, settle_date, value, ...}
//   GET  /v1/getinfo              GetInfo       (info:read)      -> {identity_pubkey, ...}
//   GET  /v1/channels             ListChannels  (offchain:read)  -> {channels: [...]}
// As LND does: uint64 fields are JSON strings, bytes fields base64; the macaroon travels hex-encoded in
// `Grpc-Metadata-macaroon` and is a real V2 macaroon verified against the fake's root key; macaroon
// failures are gRPC Unknown errors, which grpc-gateway answers with HTTP 500
// `{"code":2,"message":"verification failed: …"}`; an unknown invoice is NotFound: HTTP 404
// `{"code":5,"message":"unable to locate invoice"}`; open invoices past their expiry read as CANCELED
// (LND's invoice registry cancels them). Test-only code.
import { randomBytes } from "node:crypto";
// @ts-expect-error -- the macaroon package ships no type declarations; MacaroonPackage types what we use.
import macaroonPackage from "macaroon";
import { FakeWalletApi } from "./fake-wallet-api.ts";
import { FakeHttpServer, jsonBody, type FakeReply, type RecordedRequest } from "./fake-http-server.ts";
import { generateSelfSignedCertificate } from "./self-signed-cert.ts";

type Macaroon = { identifier: Uint8Array; exportBinary(): Uint8Array; verify(rootKey: Uint8Array, check: (condition: string) => string | null): void };
type MacaroonPackage = {
  newMacaroon(params: { identifier: Uint8Array; location: string; rootKey: Uint8Array; version: 2 }): Macaroon;
  importMacaroon(bytes: Uint8Array): Macaroon;
};
const macaroons = macaroonPackage as MacaroonPackage;

/** What LND's invoice.macaroon may do (lnd's invoicePermissions). */
export const LND_INVOICE_MACAROON_PERMISSIONS = ["invoices:read", "invoices:write", "address:read", "address:write", "onchain:read"];
/** What admin.macaroon may do, reduced to the entities this fake serves. */
export const LND_ADMIN_MACAROON_PERMISSIONS = [
  "invoices:read",
  "invoices:write",
  "info:read",
  "offchain:read",
  "offchain:write",
  "onchain:read",
  "address:read",
];
/** The macaroon we recommend providers bake: `lncli bakemacaroon invoices:read invoices:write info:read offchain:read`. */
export const LND_RECOMMENDED_PERMISSIONS = ["invoices:read", "invoices:write", "info:read", "offchain:read"];

/** A channel as the fake's ListChannels reports it. */
export type FakeLndChannel = {
  active: boolean;
  remotePubkey: string;
  capacitySat: number;
  localBalanceSat: number;
  remoteBalanceSat: number;
  /** What the peer must keep on its side (remote_chan_reserve_sat); 1% of capacity when omitted. */
  remoteReserveSat?: number;
};

/** Options of a fake LND: https with a self-signed certificate like a real node, and a clock. */
export type FakeLndOptions = { tls?: boolean; now?: () => Date };

/** LND's own limit on invoice memos (invoices.MaxMemoSize). */
const MAX_MEMO_BYTES = 1024;
/** LND's default invoice expiry when none is given. */
const DEFAULT_EXPIRY_SECONDS = 86_400;
/** Fields AddInvoice accepts that this fake understands; grpc-gateway refuses unknown ones. */
const ADD_INVOICE_FIELDS = new Set(["value", "value_msat", "memo", "expiry", "private"]);

/** A gRPC error as grpc-gateway renders it. */
function grpcError(status: number, code: number, message: string): FakeReply {
  return { status, body: { code, message, details: [] } };
}

/** Parses an int64 JSON field the way grpc-gateway does: number or decimal string. */
function int64(value: unknown): bigint | null {
  if (value === undefined) return 0n;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  return null;
}

const seconds = (date: Date | null) => (date ? String(Math.floor(date.getTime() / 1000)) : "0");
const b64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");

/** A running fake LND REST server and its test controls. */
export class FakeLnd extends FakeWalletApi {
  /** Channels ListChannels reports; tests edit this list. */
  channels: FakeLndChannel[] = [];
  /** LND's invoice.macaroon for this node (hex). */
  readonly invoiceMacaroonHex: string;
  /** LND's admin.macaroon for this node (hex). */
  readonly adminMacaroonHex: string;

  private readonly rootKey = new Uint8Array(randomBytes(32));

  private constructor(
    private readonly now: () => Date,
    /** The node's tls.cert (PEM) when serving https, else null. */
    readonly tlsCertPem: string | null,
  ) {
    super(now);
    this.invoiceMacaroonHex = this.bakeMacaroon(LND_INVOICE_MACAROON_PERMISSIONS);
    this.adminMacaroonHex = this.bakeMacaroon(LND_ADMIN_MACAROON_PERMISSIONS);
  }

  /** Starts a fake LND on 127.0.0.1 (https with a fresh self-signed certificate when `tls`). */
  static async start(options: FakeLndOptions = {}): Promise<FakeLnd> {
    const certificate = options.tls ? generateSelfSignedCertificate() : null;
    const fake = new FakeLnd(options.now ?? (() => new Date()), certificate?.certPem ?? null);
    fake.server = await FakeHttpServer.start((request, url) => fake.route(request, url), {
      tls: certificate ? { key: certificate.keyPem, cert: certificate.certPem } : undefined,
    });
    return fake;
  }

  /** Bakes a macaroon with these `entity:action` permissions (`lncli bakemacaroon`), as hex. */
  bakeMacaroon(permissions: string[]): string {
    // LND's identifier is a version byte then a protobuf; the fake keeps the version byte and JSON.
    const identifier = Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify({ nonce: randomBytes(16).toString("hex"), ops: permissions }))]);
    const macaroon = macaroons.newMacaroon({ identifier: new Uint8Array(identifier), location: "lnd", rootKey: this.rootKey, version: 2 });
    return Buffer.from(macaroon.exportBinary()).toString("hex");
  }

  /** Checks the macaroon as LND's interceptor does; null when it grants `permission`. */
  private authorize(request: RecordedRequest, permission: string): FakeReply | null {
    const header = request.headers["grpc-metadata-macaroon"];
    if (typeof header !== "string") return grpcError(500, 2, `expected 1 macaroon, got ${Array.isArray(header) ? header.length : 0}`);
    let macaroon: Macaroon;
    try {
      macaroon = macaroons.importMacaroon(new Uint8Array(Buffer.from(header, "hex")));
    } catch (err) {
      return grpcError(500, 2, (err as Error).message);
    }
    try {
      macaroon.verify(this.rootKey, () => "caveats are not supported by this fake");
    } catch (err) {
      return grpcError(500, 2, `verification failed: ${(err as Error).message}`);
    }
    const ops = (JSON.parse(Buffer.from(macaroon.identifier).subarray(1).toString("utf8")) as { ops: string[] }).ops;
    return ops.includes(permission) ? null : grpcError(500, 2, "permission denied");
  }

  private route(request: RecordedRequest, url: URL): FakeReply | Promise<FakeReply> {
    const lookup = /^\/v1\/invoice\/([^/]+)$/.exec(url.pathname);
    if (request.method === "POST" && url.pathname === "/v1/invoices") return this.authorize(request, "invoices:write") ?? this.addInvoice(request);
    if (request.method === "GET" && lookup) return this.authorize(request, "invoices:read") ?? this.lookupInvoice(lookup[1]);
    if (request.method === "GET" && url.pathname === "/v1/getinfo") return this.authorize(request, "info:read") ?? this.getInfo();
    if (request.method === "GET" && url.pathname === "/v1/channels") return this.authorize(request, "offchain:read") ?? this.listChannels();
    if (request.method === "POST" && url.pathname === "/v1/channels/transactions")
      return this.authorize(request, "offchain:write") ?? this.sendPaymentSync(request);
    // grpc-gateway's answer for a path it has no route for.
    return { status: 404, body: "Not Found", contentType: "text/plain" };
  }

  /** SendPaymentSync: routing failures are a 200 with `payment_error`, as in LND. */
  private async sendPaymentSync(request: RecordedRequest): Promise<FakeReply> {
    const body = jsonBody(request);
    if (!body) return grpcError(400, 3, "invalid character in request body");
    if (typeof body.payment_request !== "string" || body.payment_request === "")
      return grpcError(500, 2, "payment hash must be exactly 32 bytes, is instead 0");
    const sent = await this.sendPayment(body.payment_request);
    if (!sent.ok) return { status: 200, body: { payment_error: sent.message, payment_preimage: "", payment_route: null, payment_hash: "" } };
    return {
      status: 200,
      body: {
        payment_error: "",
        payment_preimage: b64(sent.preimage),
        payment_route: {
          total_time_lock: 144,
          total_fees: "0",
          total_amt: String(sent.amountSat),
          hops: [],
          total_fees_msat: "0",
          total_amt_msat: String(sent.amountSat * 1000),
        },
        payment_hash: b64(sent.paymentHash),
      },
    };
  }

  private addInvoice(request: RecordedRequest): FakeReply {
    const body = jsonBody(request);
    if (!body) return grpcError(400, 3, "invalid character in request body");
    const unknown = Object.keys(body).find((field) => !ADD_INVOICE_FIELDS.has(field));
    if (unknown) return grpcError(400, 3, `unknown field "${unknown}" in lnrpc.Invoice`);
    const value = int64(body.value);
    const valueMsat = int64(body.value_msat);
    const expiry = int64(body.expiry);
    if (value === null || valueMsat === null || expiry === null) return grpcError(400, 3, "invalid value for int64 field");
    if (value !== 0n && valueMsat !== 0n) return grpcError(500, 2, "value and value_msat are mutually exclusive");
    const amountMsat = value !== 0n ? value * 1000n : valueMsat;
    if (amountMsat < 0n) return grpcError(500, 2, "payment amount must not be negative");
    if (amountMsat === 0n) return grpcError(500, 2, "this fake only issues invoices with an amount");
    const memo = typeof body.memo === "string" ? body.memo : "";
    const memoBytes = Buffer.byteLength(memo, "utf8");
    if (memoBytes > MAX_MEMO_BYTES) return grpcError(500, 2, `memo too large: ${memoBytes} bytes (maxsize=${MAX_MEMO_BYTES})`);
    if (expiry < 0n) return grpcError(500, 2, "expiry must not be negative");
    const invoice = this.node.issue({ amountMsat, description: memo, expirySeconds: expiry === 0n ? DEFAULT_EXPIRY_SECONDS : Number(expiry) });
    return {
      status: 200,
      body: {
        r_hash: b64(invoice.paymentHash),
        payment_request: invoice.paymentRequest,
        add_index: String(invoice.addIndex),
        payment_addr: randomBytes(32).toString("base64"),
      },
    };
  }

  private lookupInvoice(rHashStr: string): FakeReply {
    if (!/^[0-9a-fA-F]{64}$/.test(rHashStr)) return grpcError(500, 2, `unable to decode payment hash: ${rHashStr.length / 2} bytes is not 32`);
    const invoice = this.node.get(rHashStr);
    if (!invoice) return grpcError(404, 5, "unable to locate invoice");
    const state = invoice.settledAt ? "SETTLED" : this.node.isExpired(invoice) ? "CANCELED" : "OPEN";
    const paidMsat = invoice.settledAt ? invoice.amountMsat : 0n;
    return {
      status: 200,
      body: {
        memo: invoice.description,
        r_preimage: b64(invoice.preimage),
        r_hash: b64(invoice.paymentHash),
        value: String(invoice.amountMsat / 1000n),
        value_msat: String(invoice.amountMsat),
        settled: state === "SETTLED",
        creation_date: seconds(invoice.createdAt),
        settle_date: seconds(invoice.settledAt),
        payment_request: invoice.paymentRequest,
        description_hash: "",
        expiry: String(invoice.expirySeconds),
        fallback_addr: "",
        cltv_expiry: "18",
        route_hints: [],
        private: false,
        add_index: String(invoice.addIndex),
        settle_index: String(invoice.settleIndex),
        amt_paid: String(paidMsat),
        amt_paid_sat: String(paidMsat / 1000n),
        amt_paid_msat: String(paidMsat),
        state,
        htlcs: [],
        features: {},
        is_keysend: false,
        payment_addr: randomBytes(32).toString("base64"),
        is_amp: false,
        amp_invoice_state: {},
      },
    };
  }

  private getInfo(): FakeReply {
    const active = this.channels.filter((c) => c.active).length;
    return {
      status: 200,
      body: {
        version: "0.18.4-beta commit=v0.18.4-beta",
        commit_hash: "0000000000000000000000000000000000000000",
        identity_pubkey: this.node.nodePubkey,
        alias: "fake-lnd",
        color: "#3399ff",
        num_pending_channels: 0,
        num_active_channels: active,
        num_inactive_channels: this.channels.length - active,
        num_peers: new Set(this.channels.map((c) => c.remotePubkey)).size,
        block_height: 840_000,
        block_hash: "00".repeat(32),
        best_header_timestamp: seconds(this.now()),
        synced_to_chain: true,
        synced_to_graph: true,
        testnet: false,
        chains: [{ chain: "bitcoin", network: "regtest" }],
        uris: [],
        features: {},
        require_htlc_interceptor: false,
        store_final_htlc_resolutions: false,
      },
    };
  }

  private listChannels(): FakeReply {
    return {
      status: 200,
      body: {
        channels: this.channels.map((channel, index) => ({
          active: channel.active,
          remote_pubkey: channel.remotePubkey,
          channel_point: `${"ab".repeat(32)}:${index}`,
          chan_id: String(800_000n * 2n ** 40n + BigInt(index)),
          capacity: String(channel.capacitySat),
          local_balance: String(channel.localBalanceSat),
          remote_balance: String(channel.remoteBalanceSat),
          commit_fee: "2810",
          commit_weight: "772",
          fee_per_kw: "2500",
          unsettled_balance: "0",
          total_satoshis_sent: "0",
          total_satoshis_received: "0",
          num_updates: "0",
          pending_htlcs: [],
          csv_delay: 144,
          private: false,
          initiator: true,
          chan_status_flags: "ChanStatusDefault",
          local_chan_reserve_sat: String(Math.floor(channel.capacitySat / 100)),
          remote_chan_reserve_sat: String(channel.remoteReserveSat ?? Math.floor(channel.capacitySat / 100)),
          static_remote_key: false,
          commitment_type: "ANCHORS",
          lifetime: "3600",
          uptime: channel.active ? "3600" : "0",
          close_address: "",
          push_amount_sat: "0",
          thaw_height: 0,
          alias_scids: [],
          zero_conf: false,
          zero_conf_confirmed_scid: "0",
          peer_alias: "",
          peer_scid_alias: "0",
          memo: "",
        })),
      },
    };
  }
}
