// getDirectoryEntry: the detail view (spec 2.4) of one listed API.
import { describe, expect, it } from "vitest";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { directoryDetailSchema } from "@/lib/directory/schemas.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { createApi } from "./fixtures.ts";

const ctx = useTestContext();

const pubkey = `03${"cd".repeat(32)}`;

describe("getDirectoryEntry", () => {
  it("adds walletPubkey, isExternal and endpoint parameters to the list entry", async () => {
    await createApi(ctx().db.prisma, ctx().config.appSecret, {
      slug: "demo",
      name: "Hub Demo API",
      description: "A tiny API.",
      tags: ["demo", "examples"],
      nodePubkey: pubkey,
      endpoints: [
        {
          path: "/v1/fortune",
          title: "Fortune of the day",
          pricingModel: "per_request",
          priceSats: 1,
          parameters: [{ name: "lang", in: "query", required: false, type: "string", description: "Language code" }, { name: "" }, "garbage", { name: "seed" }],
        },
        { path: "/v1/ping", title: "Ping" },
      ],
    });
    const detail = await getDirectoryEntry({ prisma: ctx().db.prisma, config: ctx().config, slug: "demo" });
    expect(detail).not.toBeNull();
    expect(directoryDetailSchema.parse(detail)).toEqual(detail);
    expect(detail).toMatchObject({
      slug: "demo",
      name: "Hub Demo API",
      tags: ["demo", "examples"],
      gatewayDomain: gatewayUrlFor(ctx().config, "demo"),
      endpointCount: 2,
      walletPubkey: pubkey,
      isExternal: false,
    });
    expect(detail!.endpoints[0]).toMatchObject({ path: "/v1/fortune", pricingModel: "per_request", priceSats: 1 });
    // Malformed provider-entered parameters are skipped; missing fields get defaults.
    expect(detail!.endpoints[0].parameters).toEqual([
      { name: "lang", in: "query", required: false, type: "string", description: "Language code" },
      { name: "seed", in: "query", required: false, type: "string", description: "" },
    ]);
    expect(detail!.endpoints[1]).toMatchObject({ path: "/v1/ping", pricingModel: null, priceSats: 0, parameters: [] });
  });

  it("gives walletPubkey null when the wallet has not reported one", async () => {
    await createApi(ctx().db.prisma, ctx().config.appSecret, { slug: "nokey", nodePubkey: null });
    const detail = await getDirectoryEntry({ prisma: ctx().db.prisma, config: ctx().config, slug: "nokey" });
    expect(detail?.walletPubkey).toBeNull();
  });

  it("finds a slug typed in another case and returns null for an unknown one", async () => {
    await createApi(ctx().db.prisma, ctx().config.appSecret, { slug: "demo" });
    expect((await getDirectoryEntry({ prisma: ctx().db.prisma, config: ctx().config, slug: "DeMo" }))?.slug).toBe("demo");
    expect(await getDirectoryEntry({ prisma: ctx().db.prisma, config: ctx().config, slug: "nope" })).toBeNull();
  });
});
