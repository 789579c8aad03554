// What the first start seeds (lib/demo/seed-demo.ts) and the e2e server's addresses.
export const demo = {
  slug: "demo",
  name: "Hub Demo API",
  description: "A tiny built-in API that shows the whole L402 flow: a paid call, a bundle of calls for one payment, a live event stream and a free ping.",
  gateway: "http://localhost:8502/gw/demo",
  paid: { path: "/v1/fortune", title: "Fortune of the day", price: "1 sat per request" },
  free: { path: "/v1/ping", title: "Ping", price: "Free" },
  session: { path: "/v1/lucky/{name}", title: "Lucky numbers", price: "5 requests for 1 sat" },
  stream: { path: "/v1/ticker", title: "Block ticker", price: "1 sat per request" },
};
