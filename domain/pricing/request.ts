import type { z } from 'zod';
import type { CalculateBody } from './calculation-schemas';

/**
 * The body of `POST /api/v1/quotes/calculate` (spec 4.3) after validation, as the engine reads
 * it: derived from the zod schema (type only; the engine never runs the validator), so the two
 * cannot drift. Persistence is the caller's business, so the engine takes `persist` as optional.
 * The limits (widths > 0, 1-200 lines, margins in [0, 1)) are enforced there.
 */
export type CalculationRequest = Omit<z.output<typeof CalculateBody>, 'persist'> & { persist?: boolean | undefined };
export type CalculationLineItem = CalculationRequest['lineItems'][number];
