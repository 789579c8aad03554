// A minimal but real NIP-01 relay over `ws` (https://github.com/nostr-protocol/nips/blob/master/01.md):
//   ["EVENT", <event>]          -> verified (id and Schnorr signature, nostr-tools verifyEvent), then
//                                  ["OK", id, true|false, "<prefix>: <reason>"] and fanned out to matching
//                                  subscriptions. Regular events are stored; replaceable kinds (0, 3,
//                                  10000-19999) keep the newest per author and kind; addressable kinds
//                                  (30000-39999) the newest per author, kind and `d` tag; ephemeral kinds
//                                  (20000-29999: NWC's requests and responses) are delivered, never stored.
//   ["REQ", subId, filters...]  -> stored matches (newest first, `limit` per filter), ["EOSE", subId], then live events
//   ["CLOSE", subId]            -> ends the subscription
// Filters: ids, authors, kinds, #<letter> tags, since, until, limit. Malformed messages get ["NOTICE", …].
// Test controls: drop every connection, refuse events with a reason, deliver forged events, inspect
// what was published. Test-only code.
import type { AddressInfo } from "node:net";
import { verifyEvent, type NostrEvent } from "nostr-tools/pure";
import { WebSocketServer, type WebSocket } from "ws";

/** A NIP-01 filter. */
export type NostrFilter = {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  since?: number;
  until?: number;
  limit?: number;
  [tag: `#${string}`]: string[] | undefined;
};

/** True when an event matches one filter (NIP-01 semantics: every given condition holds). */
export function matchesFilter(event: NostrEvent, filter: NostrFilter): boolean {
  if (filter.ids && !filter.ids.includes(event.id)) return false;
  if (filter.authors && !filter.authors.includes(event.pubkey)) return false;
  if (filter.kinds && !filter.kinds.includes(event.kind)) return false;
  if (filter.since !== undefined && event.created_at < filter.since) return false;
  if (filter.until !== undefined && event.created_at > filter.until) return false;
  for (const [key, values] of Object.entries(filter) as [string, unknown][]) {
    if (!key.startsWith("#") || key.length !== 2 || !Array.isArray(values)) continue;
    const letter = key.slice(1);
    const wanted = values as unknown[];
    if (!event.tags.some((tag) => tag[0] === letter && wanted.includes(tag[1]))) return false;
  }
  return true;
}

const isEphemeral = (kind: number) => kind >= 20000 && kind < 30000;
const isReplaceable = (kind: number) => kind === 0 || kind === 3 || (kind >= 10000 && kind < 20000);
const isAddressable = (kind: number) => kind >= 30000 && kind < 40000;

/** The shape check NIP-01 implies before a signature can even be verified. */
function isEventShape(value: unknown): value is NostrEvent {
  const event = value as NostrEvent;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof event.id === "string" &&
    typeof event.pubkey === "string" &&
    typeof event.sig === "string" &&
    typeof event.content === "string" &&
    Number.isInteger(event.kind) &&
    Number.isInteger(event.created_at) &&
    Array.isArray(event.tags) &&
    event.tags.every((tag) => Array.isArray(tag) && tag.every((part) => typeof part === "string"))
  );
}

/** A running fake relay and its controls. */
export class FakeNostrRelay {
  /** Every event accepted, ephemeral ones included, oldest first (for assertions). */
  readonly accepted: NostrEvent[] = [];
  private readonly stored = new Map<string, NostrEvent>();
  private readonly subscriptions = new Map<WebSocket, Map<string, NostrFilter[]>>();
  private refusal: string | null = null;
  /** Client connections accepted since start, open or closed (tests bounding how many a client opens). */
  connectionsOpened = 0;

  private constructor(
    private readonly server: WebSocketServer,
    /** `ws://127.0.0.1:<port>` */
    readonly url: string,
  ) {
    server.on("connection", (socket: WebSocket) => {
      this.connectionsOpened += 1;
      this.subscriptions.set(socket, new Map());
      socket.on("message", (data) => this.receive(socket, data.toString()));
      socket.on("close", () => this.subscriptions.delete(socket));
      socket.on("error", () => socket.terminate());
    });
  }

  /** Starts a relay on a random loopback port. */
  static async start(): Promise<FakeNostrRelay> {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const { port } = server.address() as AddressInfo;
    return new FakeNostrRelay(server, `ws://127.0.0.1:${port}`);
  }

  /** Client connections currently open. */
  get connectionCount(): number {
    return this.subscriptions.size;
  }

  /** Events the relay keeps (what a REQ can return), newest first. */
  get storedEvents(): NostrEvent[] {
    return [...this.stored.values()].sort((a, b) => b.created_at - a.created_at || a.id.localeCompare(b.id));
  }

  /** True when some live subscription has a filter satisfying the predicate (tests waiting for a (re)subscribe). */
  hasSubscription(predicate: (filter: NostrFilter) => boolean): boolean {
    for (const subs of this.subscriptions.values()) {
      for (const filters of subs.values()) if (filters.some(predicate)) return true;
    }
    return false;
  }

  /** Terminates every client connection abruptly (a relay restart, a network drop). */
  dropConnections(): void {
    for (const socket of [...this.subscriptions.keys()]) {
      // Forgotten at once, so hasSubscription only sees subscriptions made after the drop.
      this.subscriptions.delete(socket);
      socket.terminate();
    }
  }

  /** Sends an event to every live subscription unverified and unfiltered: a malicious or buggy relay. */
  deliverUnchecked(event: NostrEvent): void {
    for (const [subscriber, subs] of this.subscriptions) {
      for (const subId of subs.keys()) this.send(subscriber, ["EVENT", subId, event]);
    }
  }

  /** Answers every EVENT with `["OK", id, false, reason]` until called with null. */
  refuseEvents(reason: string | null): void {
    this.refusal = reason;
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private send(socket: WebSocket, message: unknown[]): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  }

  private receive(socket: WebSocket, raw: string): void {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      this.send(socket, ["NOTICE", "invalid: message is not JSON"]);
      return;
    }
    if (!Array.isArray(message) || typeof message[0] !== "string") {
      this.send(socket, ["NOTICE", "invalid: message must be a JSON array starting with a verb"]);
      return;
    }
    const [verb, ...args] = message as [string, ...unknown[]];
    if (verb === "EVENT") this.onEvent(socket, args[0]);
    else if (verb === "REQ") this.onReq(socket, args);
    else if (verb === "CLOSE" && typeof args[0] === "string") this.subscriptions.get(socket)?.delete(args[0]);
    else this.send(socket, ["NOTICE", `invalid: unknown or malformed ${verb} message`]);
  }

  private onEvent(socket: WebSocket, value: unknown): void {
    if (!isEventShape(value)) {
      this.send(socket, ["NOTICE", "invalid: malformed event"]);
      return;
    }
    const event = value;
    if (!verifyEvent({ ...event })) {
      this.send(socket, ["OK", event.id, false, "invalid: bad event id or signature"]);
      return;
    }
    if (this.refusal !== null) {
      this.send(socket, ["OK", event.id, false, this.refusal]);
      return;
    }
    if (this.accepted.some((seen) => seen.id === event.id)) {
      this.send(socket, ["OK", event.id, true, "duplicate: already have this event"]);
      return;
    }
    this.accepted.push(event);
    this.store(event);
    this.send(socket, ["OK", event.id, true, ""]);
    for (const [subscriber, subs] of this.subscriptions) {
      for (const [subId, filters] of subs) {
        if (filters.some((filter) => matchesFilter(event, filter))) this.send(subscriber, ["EVENT", subId, event]);
      }
    }
  }

  private store(event: NostrEvent): void {
    if (isEphemeral(event.kind)) return;
    let key = event.id;
    if (isReplaceable(event.kind)) key = `${event.kind}:${event.pubkey}`;
    else if (isAddressable(event.kind)) key = `${event.kind}:${event.pubkey}:${event.tags.find((t) => t[0] === "d")?.[1] ?? ""}`;
    const previous = this.stored.get(key);
    // NIP-01: the newer replaceable event wins; on equal timestamps, the lower id.
    if (previous && (previous.created_at > event.created_at || (previous.created_at === event.created_at && previous.id < event.id))) return;
    this.stored.set(key, event);
  }

  private onReq(socket: WebSocket, args: unknown[]): void {
    const [subId, ...filters] = args;
    if (typeof subId !== "string" || subId.length === 0 || subId.length > 64) {
      this.send(socket, ["NOTICE", "invalid: subscription id must be a string of 1-64 characters"]);
      return;
    }
    if (filters.length === 0 || !filters.every((filter) => typeof filter === "object" && filter !== null && !Array.isArray(filter))) {
      this.send(socket, ["CLOSED", subId, "invalid: filters must be objects"]);
      return;
    }
    const typed = filters as NostrFilter[];
    this.subscriptions.get(socket)?.set(subId, typed);
    const stored = this.storedEvents;
    const sent = new Set<string>();
    for (const filter of typed) {
      const matches = stored.filter((event) => matchesFilter(event, filter));
      for (const event of filter.limit !== undefined ? matches.slice(0, filter.limit) : matches) {
        if (sent.has(event.id)) continue;
        sent.add(event.id);
        this.send(socket, ["EVENT", subId, event]);
      }
    }
    this.send(socket, ["EOSE", subId]);
  }
}
