// The fake relay must behave like a NIP-01 relay, or the NWC tests prove nothing: checked here with
// a raw websocket client speaking the wire protocol.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import WebSocket from "ws";
import { FakeNostrRelay, matchesFilter } from "./nostr-relay.ts";

let relay: FakeNostrRelay;
const clients: WebSocket[] = [];

beforeAll(async () => {
  relay = await FakeNostrRelay.start();
});
afterAll(async () => {
  for (const client of clients) client.terminate();
  await relay.close();
});

/** A raw NIP-01 client: sends arrays, collects every message received. */
async function connect(): Promise<{ send(message: unknown[]): void; messages: unknown[][]; next(verb: string, count?: number): Promise<unknown[][]> }> {
  const socket = new WebSocket(relay.url);
  clients.push(socket);
  const messages: unknown[][] = [];
  socket.on("message", (data) => messages.push(JSON.parse(data.toString()) as unknown[]));
  await new Promise((resolve) => socket.once("open", resolve));
  return {
    send: (message) => socket.send(JSON.stringify(message)),
    messages,
    async next(verb, count = 1) {
      for (let waited = 0; waited < 2000; waited += 10) {
        const found = messages.filter((m) => m[0] === verb);
        if (found.length >= count) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no ${verb} message`);
    },
  };
}

const author = generateSecretKey();
let clock = 1_900_000_000;
const event = (kind: number, tags: string[][] = [], content = "x", key = author): NostrEvent =>
  finalizeEvent({ kind, created_at: clock++, tags, content }, key);

describe("FakeNostrRelay", () => {
  it("answers OK true for a valid event and OK false with an invalid: reason for a forged one", async () => {
    const client = await connect();
    const good = event(1);
    client.send(["EVENT", good]);
    client.send(["EVENT", { ...event(1), content: "tampered" }]);
    const oks = await client.next("OK", 2);
    expect(oks[0]).toEqual(["OK", good.id, true, ""]);
    expect(oks[1][2]).toBe(false);
    expect(String(oks[1][3])).toMatch(/^invalid: /);
  });

  it("replays stored matches then EOSE, keeps ephemeral events out of storage, and replaces replaceable ones", async () => {
    const client = await connect();
    const pubkey = getPublicKey(author);
    const older = event(13194, [], "old info");
    const newer = event(13194, [], "new info");
    const ephemeral = event(23194, [["p", "ab".repeat(32)]]);
    for (const e of [older, newer, ephemeral]) client.send(["EVENT", e]);
    await client.next("OK", 3);
    const reader = await connect();
    reader.send(["REQ", "s1", { kinds: [13194, 23194], authors: [pubkey] }]);
    await reader.next("EOSE");
    const replayed = reader.messages.filter((m) => m[0] === "EVENT").map((m) => (m[2] as NostrEvent).id);
    expect(replayed).toEqual([newer.id]);
    expect(relay.storedEvents.some((e) => e.id === ephemeral.id)).toBe(false);
  });

  it("delivers live events to matching subscriptions until CLOSE", async () => {
    const subscriber = await connect();
    const target = "cd".repeat(32);
    subscriber.send(["REQ", "live", { kinds: [23195], "#p": [target], since: clock - 1 }]);
    await subscriber.next("EOSE");
    const publisher = await connect();
    const match = event(23195, [["p", target]]);
    publisher.send(["EVENT", event(23195, [["p", "ef".repeat(32)]])]);
    publisher.send(["EVENT", match]);
    const delivered = await subscriber.next("EVENT");
    expect(delivered).toEqual([["EVENT", "live", JSON.parse(JSON.stringify(match))]]);
    subscriber.send(["CLOSE", "live"]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    publisher.send(["EVENT", event(23195, [["p", target]])]);
    await publisher.next("OK", 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(subscriber.messages.filter((m) => m[0] === "EVENT")).toHaveLength(1);
  });

  it("answers malformed messages with NOTICE", async () => {
    const client = await connect();
    client.send(["NOPE"]);
    expect((await client.next("NOTICE"))[0][1]).toMatch(/^invalid: /);
  });

  it.each([
    [{ kinds: [1] }, true],
    [{ kinds: [2] }, false],
    [{ "#p": ["aa"] }, true],
    [{ "#p": ["bb"] }, false],
    [{ "#e": ["aa"] }, false],
    [{ since: 100, until: 100 }, true],
    [{ since: 101 }, false],
    [{ until: 99 }, false],
  ])("filter %j matches: %s", (filter, expected) => {
    const e = { id: "1", pubkey: "k", kind: 1, created_at: 100, tags: [["p", "aa"]], content: "", sig: "" } as NostrEvent;
    expect(matchesFilter(e, filter)).toBe(expected);
  });
});
