// The route-planning engine's public surface: build a RouteEngine over the cached OSM network,
// then route, match matrices, snap, and find the network reachable within a time or distance
// (isochrones). No HTTP: the origin server wraps this.
export {
  RouteEngine,
  CH_VERSION,
  TRAFFIC_NOTE,
  U_TURN_SECONDS,
  uTurnWeight,
  type Matrix,
  type Reachability,
  type ReachableArea,
  type ReachableOptions,
  type Route,
  type RouteEdge,
  type RouteEngineOptions,
  type RouteLeg,
  type TravelOptions,
} from "./route-engine.ts";
export { InvalidCoordinateError, NoRoadNearbyError, OutsideCoverageError, type SnappedPoint } from "./snap.ts";
export { GRAPH_VERSION, OSM_ATTRIBUTION, OSM_LICENSE, type BBox, type RoadNetwork } from "./road-network.ts";
export { DEFAULT_DIMENSIONS, DEFAULT_SPEED_KMH, PROFILES, TRAFFIC_BANDS, type Profile, type TrafficBand, type VehicleDimensions } from "./profiles.ts";
export { METRICS, type Metric } from "./edge-costs.ts";
export { FUEL_CURVES, U_TURN_FUEL_ML, fuelLitresPer100Km, fuelMillilitres } from "./fuel.ts";
