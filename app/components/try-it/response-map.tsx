"use client";
// A try-it answer drawn on a map: its lines (routes, tours), areas (reachability bands, shaded
// per band), and points numbered in order, on a tile-free vector background (no tile server is
// reachable from the hub): the API's own free basemap endpoint, fetched through the gateway for the
// shown box, when it has one. Leaflet touches `window`, so it is loaded in the browser only.
import "leaflet/dist/leaflet.css";
import type * as Leaflet from "leaflet";
import { useEffect, useId, useRef, useState } from "react";
import { basemapUrl, padBbox } from "@/lib/try-it/basemap-source.ts";
import { describeResponseGeometry, findResponseGeometry, type Bbox, type LngLat, type ResponseGeometry } from "@/lib/try-it/response-geometry.ts";

type LeafletModule = typeof Leaflet;
type BasemapState = "none" | "loading" | "drawn" | "failed";

/** More lines than this are drawn as one path (a basemap tried on its own): no tooltip each. */
const MAX_SEPARATE_LINES = 300;

const toLatLng = ([lng, lat]: LngLat): [number, number] => [lat, lng];

/**
 * A tooltip's content as a text node: Leaflet puts a string tooltip into the page as HTML, and these
 * labels come from an API's answer (a stop's name, a vehicle id), which must never become markup.
 */
function plainText(text: string): HTMLElement {
  const span = document.createElement("span");
  span.textContent = text;
  return span;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function loadLeaflet(): Promise<LeafletModule> {
  const mod = await import("leaflet");
  return (mod as unknown as { default?: LeafletModule }).default ?? mod;
}

function drawAnswer(L: LeafletModule, map: Leaflet.Map, geometry: ResponseGeometry): void {
  for (const area of geometry.areas) {
    L.polygon(
      area.polygons.map((rings) => rings.map((ring) => ring.map(toLatLng))),
      { className: "stroke-accent fill-accent", weight: 1.5, fillOpacity: area.fillOpacity },
    )
      .bindTooltip(plainText(area.label ?? "area"), { sticky: true })
      .addTo(map);
  }
  const lineStyle = { className: "stroke-accent", weight: 4, opacity: 0.9 };
  if (geometry.lines.length > MAX_SEPARATE_LINES) {
    L.polyline(
      geometry.lines.map((l) => l.coordinates.map(toLatLng)),
      { ...lineStyle, weight: 1.5, interactive: false },
    ).addTo(map);
  } else {
    for (const line of geometry.lines) {
      const drawn = L.polyline(line.coordinates.map(toLatLng), lineStyle).addTo(map);
      if (line.label) drawn.bindTooltip(plainText(line.label), { sticky: true });
    }
  }
  for (const location of geometry.requestPoints) {
    L.circleMarker(toLatLng(location), { className: "stroke-foreground", radius: 7, weight: 1.5, dashArray: "3 3", fill: false, interactive: false }).addTo(
      map,
    );
  }
  for (const marker of geometry.markers.filter((m) => m.minor)) {
    L.circleMarker(toLatLng(marker.location), { className: "stroke-accent fill-surface", radius: 3, weight: 1.5, fillOpacity: 1 })
      .bindTooltip(plainText(marker.label))
      .addTo(map);
  }
  for (const marker of geometry.markers.filter((m) => !m.minor)) {
    const icon = L.divIcon({
      className: "",
      html: `<span class="flex size-6 items-center justify-center rounded-full border-2 border-surface bg-accent text-xs font-bold text-white shadow dark:text-zinc-950">${escapeHtml(marker.symbol)}</span>`,
      iconSize: [24, 24],
      iconAnchor: [12, 12],
    });
    // Not a tab stop each: the map itself is one, and Tab leaves it.
    const text = `${marker.group ? `${marker.group}: ` : ""}${marker.symbol}. ${marker.label}`;
    L.marker(toLatLng(marker.location), { icon, keyboard: false, alt: text }).bindTooltip(plainText(text)).addTo(map);
  }
}

/** Fetches the basemap for the box and draws its ways thin and grey beneath the answer. */
async function drawBasemap(L: LeafletModule, map: Leaflet.Map, url: string, signal: AbortSignal): Promise<boolean> {
  const res = await fetch(url, { signal, cache: "force-cache" });
  if (!res.ok) return false;
  const background = findResponseGeometry(await res.json());
  if (!background || signal.aborted) return false;
  const pane = map.getPane("basemap") ?? map.createPane("basemap");
  pane.style.zIndex = "350";
  // One path for every way: thousands of SVG elements would make panning slow.
  L.polyline(
    background.lines.map((l) => l.coordinates.map(toLatLng)),
    { pane: "basemap", className: "stroke-muted", weight: 1.25, opacity: 0.45, interactive: false },
  ).addTo(map);
  if (background.attribution) map.attributionControl.addAttribution(escapeHtml(background.attribution));
  return true;
}

export type ResponseMapProps = {
  geometry: ResponseGeometry;
  /** The tenant's gateway base address, which the basemap is fetched through. */
  gatewayBase: string;
  /** The API's basemap endpoint (findBasemapPath), or null when it has none. */
  basemapPath: string | null;
};

/** The box the map shows once fitted, grown a little so a small pan still finds streets. */
function viewBbox(map: Leaflet.Map): Bbox {
  const b = map.getBounds();
  return padBbox([b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], 0.1, 0);
}

export function ResponseMap({ geometry, gatewayBase, basemapPath }: ResponseMapProps) {
  const container = useRef<HTMLDivElement>(null);
  const captionId = useId();
  // What became of the basemap of which drawing: older drawings' outcomes do not count.
  const [outcome, setOutcome] = useState<{ geometry: ResponseGeometry; path: string; drawn: boolean } | null>(null);
  const basemap: BasemapState = !basemapPath
    ? "none"
    : outcome?.geometry === geometry && outcome.path === basemapPath
      ? outcome.drawn
        ? "drawn"
        : "failed"
      : "loading";
  const caption = describeResponseGeometry(geometry);

  useEffect(() => {
    let map: Leaflet.Map | null = null;
    let gone = false;
    const controller = new AbortController();
    void (async () => {
      const L = await loadLeaflet();
      if (gone || !container.current) return;
      // No tile layer: zoom limits must be given, there is no layer to take them from.
      map = L.map(container.current, { minZoom: 3, maxZoom: 19, zoomSnap: 0.25, scrollWheelZoom: false, attributionControl: true });
      map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
      const [minLng, minLat, maxLng, maxLat] = geometry.bbox;
      map.fitBounds(
        [
          [minLat, minLng],
          [maxLat, maxLng],
        ],
        { padding: [24, 24], maxZoom: 17 },
      );
      if (geometry.attribution) map.attributionControl.addAttribution(escapeHtml(geometry.attribution));
      drawAnswer(L, map, geometry);
      if (!basemapPath) return;
      // The whole view, not only the answer's box: a wide map around a short route shows its streets.
      const url = basemapUrl(gatewayBase, basemapPath, viewBbox(map));
      const drawn = await drawBasemap(L, map, url, controller.signal).catch(() => false);
      if (!gone) setOutcome({ geometry, path: basemapPath, drawn });
    })();
    return () => {
      gone = true;
      controller.abort();
      map?.remove();
    };
  }, [geometry, gatewayBase, basemapPath]);

  return (
    <figure aria-labelledby={captionId} className="overflow-hidden rounded-xl border border-line bg-surface">
      <div
        ref={container}
        role="group"
        aria-roledescription="map"
        aria-label={caption}
        data-basemap={basemap}
        className="h-72 w-full sm:h-96"
        style={{ background: "var(--surface-subtle)" }}
      />
      <figcaption id={captionId} className="border-t border-line px-3 py-1.5 text-xs text-muted">
        {caption}
        {basemap === "drawn" ? " Streets from the API's basemap." : basemap === "failed" ? " The basemap could not be loaded." : ""}
      </figcaption>
    </figure>
  );
}
