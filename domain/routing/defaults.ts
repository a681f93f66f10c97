/**
 * D23's defaults that are rules of routing rather than tenant settings (those, with their
 * defaults, are domain/organizations/settings.ts).
 */
export const ROUTING_DEFAULTS = {
  /** The shortest duration a job is given, minutes. */
  minimumJobMinutes: 15,
} as const;
