import { ROUTE_RESPONSES, isQuoteResponse, isRecord, type Target, type VersionChange } from '../change';

/** Inches with at most four decimals, from a difference of two such numbers. */
const inches = (value: number) => Number(value.toFixed(4));

/**
 * 2026-07-01 (document 000 section 9): a quote line's `deduction` became a scalar, the inches the
 * tube is cut shorter than the finished width. Before it, `deduction` was the object of the three
 * cut deductions (tube, hembar and fabric), each the finished width less that cut.
 */
export const change20260701: VersionChange = {
  version: '2026-07-01',
  description:
    'Quote lines: `lines[].deduction` is a scalar (inches the tube is shorter than the finished width); it was `{tubeIn, hembarIn, fabricIn}` before. ' +
    'Route responses name the constraint that excluded a technician: `exclusions` and the `reasons` of `unassigned` (absent before).',
  transform(target: Target, body: unknown): unknown {
    if (target.kind === 'response' && (ROUTE_RESPONSES.day as readonly string[]).includes(target.route) && isRecord(body)) {
      const { exclusions: _added, ...rest } = body;
      const unassigned = Array.isArray(body.unassigned) ? body.unassigned.map((job: unknown) => (isRecord(job) ? { jobId: job.jobId } : job)) : body.unassigned;
      return { ...rest, unassigned };
    }
    if (!isQuoteResponse(target) || !isRecord(body) || !Array.isArray(body.lines)) return body;
    return {
      ...body,
      lines: body.lines.map((line: unknown) => {
        if (!isRecord(line) || !isRecord(line.cutList) || !isRecord(line.configuration)) return line;
        const width = Number(line.configuration.finishedWidthIn);
        const cut = line.cutList as { tubeIn: number; hembarIn: number; fabricIn: number };
        return { ...line, deduction: { tubeIn: inches(width - cut.tubeIn), hembarIn: inches(width - cut.hembarIn), fabricIn: inches(width - cut.fabricIn) } };
      }),
    };
  },
};
