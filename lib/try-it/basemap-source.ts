// The vector background of try-it's map. No tile server is reachable from where the hub runs, so an
// API that wants its answers drawn on its own map data documents a FREE `GET …/basemap` endpoint
// taking `bbox=minLng,minLat,maxLng,maxLat` and answering GeoJSON lines (docs/api-pages.md); the
// page fetches it through the gateway for the box it draws. Pure and browser-safe.
import type { Bbox } from "./response-geometry.ts";

/** What the page knows of an endpoint (a subset of the directory's EndpointDetail). */
export type BasemapCandidate = {
  method: string;
  path: string;
  pricingModel: string | null;
  parameters: { name: string; in: string }[];
};

/** The path of the API's basemap endpoint (free GET, path ending in /basemap, a `bbox` query parameter), or null. */
export function findBasemapPath(endpoints: BasemapCandidate[]): string | null {
  const found = endpoints.find(
    (e) =>
      e.method.toUpperCase() === "GET" &&
      e.pricingModel === null &&
      /\/basemap$/.test(e.path) &&
      !e.path.includes("{") &&
      e.parameters.some((p) => p.name === "bbox" && p.in === "query"),
  );
  return found?.path ?? null;
}

const METERS_PER_DEGREE_LAT = 111_320;

/**
 * The box grown by `fraction` of its size on every side, and to at least `minMeters` across, so
 * the streets around a single point or a short route show too.
 */
export function padBbox([minLng, minLat, maxLng, maxLat]: Bbox, fraction = 0.15, minMeters = 600): Bbox {
  const midLat = (minLat + maxLat) / 2;
  const metersPerDegreeLng = METERS_PER_DEGREE_LAT * Math.max(0.01, Math.cos((midLat * Math.PI) / 180));
  const padLng = Math.max((maxLng - minLng) * fraction, (minMeters / metersPerDegreeLng - (maxLng - minLng)) / 2, 0);
  const padLat = Math.max((maxLat - minLat) * fraction, (minMeters / METERS_PER_DEGREE_LAT - (maxLat - minLat)) / 2, 0);
  return [Math.max(-180, minLng - padLng), Math.max(-90, minLat - padLat), Math.min(180, maxLng + padLng), Math.min(90, maxLat + padLat)];
}

/** The basemap's address at the gateway for a box (plain decimals: no exponent, 5 places ≈ 1 m). */
export function basemapUrl(gatewayBase: string, path: string, bbox: Bbox): string {
  const base = gatewayBase.replace(/\/+$/, "");
  return `${base}${path}?bbox=${bbox.map((n) => n.toFixed(5)).join(",")}`;
}
