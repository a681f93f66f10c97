import { z } from 'zod';
import { DAY_COMPLAINT, INSTANT_COMPLAINT, isSupportedDay, isSupportedInstant } from '../../domain/dates/supported-range';

/**
 * Every date and time a request may carry, under the one date rule (domain/dates/supported-range.ts):
 * a day or an instant outside the years 0001 to 9999 is a 422 naming its parameter, never a
 * PostgreSQL error. Each interface keeps its own description of them. The range is a refinement,
 * which the document's JSON Schema does not carry (it keeps `format`): a body checked first by a
 * compiled acceptor (api/http/compiled-acceptor.ts) must not hold one of these.
 */
export const calendarDate = (description: string) => z.iso.date().refine(isSupportedDay, { message: DAY_COMPLAINT }).meta({ description });

/** An ISO-8601 instant with an offset, judged in UTC (an offset can move its year). */
export const instant = (description: string) =>
  z.iso
    .datetime({ offset: true })
    .refine(isSupportedInstant, { message: INSTANT_COMPLAINT })
    .meta({ description });
