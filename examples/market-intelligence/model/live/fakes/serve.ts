// Runs every live-source fake until interrupted and prints the `MARKET_LIVE_*` lines to export, so
// the origin can run with `MARKET_SOURCE=live` on a machine without internet. A liquidation is
// emitted every few seconds so the stream has something to say:
//   node --import tsx examples/market-intelligence/model/live/fakes/serve.ts
import { startLiveFakes } from "./index.ts";

const fakes = await startLiveFakes();
for (const [name, value] of Object.entries(fakes.env)) console.log(`export ${name}=${value}`);
let count = 0;
const timer = setInterval(() => {
  count += 1;
  const price = fakes.market.price(Date.now());
  fakes.futures.emitForceOrder({ side: count % 3 === 0 ? "BUY" : "SELL", quantity: Math.round((0.01 + (count % 7) * 0.2) * 1000) / 1000, price });
}, 3_000);
const stop = () => {
  clearInterval(timer);
  void fakes.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
