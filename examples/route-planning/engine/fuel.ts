// Estimated fuel use for `optimize_for: fuel`: a COPERT-style U-shaped consumption curve per motor
// profile (litres per 100 km against average speed), evaluated at each edge's speed after traffic
// factors, and the fuel a U-turn burns. Estimates for ranking routes, not a vehicle's real figure
// (docs/route-planning.md, "Fuel model").
import type { Profile } from "./profiles.ts";

/**
 * l/100 km = base + stopGo / v + drag · v² (v in km/h): the 1/v term is the idling and
 * stop-and-go share that dominates slow urban driving, v² the aerodynamic drag that dominates fast
 * roads; the minimum lies at v = (stopGo / (2 · drag))^(1/3). Fitted by hand to COPERT 5's hot
 * emission curves: a petrol Euro 6 car (≈ 8.5 at 20 km/h, 5.6 at 70, 6.4 at 120), a diesel
 * N1-III van, and an 18 t rigid diesel truck.
 */
export const FUEL_CURVES: Record<Exclude<Profile, "bike">, { base: number; stopGo: number; drag: number }> = {
  car: { base: 3.4, stopGo: 100, drag: 0.00015 },
  van: { base: 5.0, stopGo: 150, drag: 0.00022 },
  truck: { base: 14, stopGo: 400, drag: 0.0012 },
};

/**
 * Millilitres a U-turn costs: braking to a stop, the manoeuvre at idle (U_TURN_SECONDS) and
 * accelerating back to about 30 km/h. Kinetic energy ½mv² at 30 km/h over an engine efficiency of
 * 25–35 % and 32–36 MJ/l, plus idling (car 0.8 l/h, van 1 l/h, truck 2.5 l/h): car 1.4 t ≈ 6 + 7,
 * van 3.5 t ≈ 11 + 12, truck 18 t ≈ 50 + 83. A bike burns none.
 */
export const U_TURN_FUEL_ML: Record<Profile, number> = { car: 15, van: 25, truck: 130, bike: 0 };

/** Litres per 100 km at an average speed; 0 for a bike (no fuel: its `fuel` metric is distance). */
export function fuelLitresPer100Km(profile: Profile, speedKmh: number): number {
  if (profile === "bike") return 0;
  const { base, stopGo, drag } = FUEL_CURVES[profile];
  // Below walking pace the 1/v term would explode: a crawling vehicle burns at most its 5 km/h rate.
  const v = Math.max(speedKmh, 5);
  return base + stopGo / v + drag * v * v;
}

/** Millilitres for `meters` at `speedKmh`: l/100 km × m / 10⁵ m × 1000 ml/l = l/100 km × m / 100. */
export function fuelMillilitres(profile: Profile, meters: number, speedKmh: number): number {
  return (fuelLitresPer100Km(profile, speedKmh) * meters) / 100;
}
