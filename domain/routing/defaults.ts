/**
 * D23's defaults for routing, one place: what a tenant has until it says otherwise (its
 * organization settings override the tenant-level ones).
 */
export const ROUTING_DEFAULTS = {
  /** Great-circle distance times this factor approximates the road distance. */
  roadFactor: 1.3,
  /** Kilometres per hour on the road. */
  averageSpeedKmh: 40,
  /** How far past its shift's end a crew may return to the depot, minutes. */
  overtimeCapMinutes: 60,
  /** D11: the working day starts at 08:00 in America/Toronto. */
  timeZone: 'America/Toronto',
  workingDayStart: '08:00',
  /** The shortest duration a job is given, minutes. */
  minimumJobMinutes: 15,
} as const;

/** The settings a plan reads from its tenant. */
export interface RoutingSettings {
  depot: { lat: number; lon: number } | null;
  roadFactor: number;
  averageSpeedKmh: number;
  overtimeCapMinutes: number;
  timeZone: string;
  workingDayStart: string;
}
