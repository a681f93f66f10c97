import { isQuoteResponse, isRecord, type Target, type VersionChange } from '../change';

/** 2026-04-15 (document 000 section 9): `pricebookRevision` was added on quote responses and on `quote.created`. */
export const change20260415: VersionChange = {
  version: '2026-04-15',
  description: '`pricebookRevision` added on quote responses and on the `quote.created` event.',
  transform(target: Target, body: unknown): unknown {
    const applies = isQuoteResponse(target) || (target.kind === 'event' && target.event === 'quote.created');
    if (!applies || !isRecord(body) || !('pricebookRevision' in body)) return body;
    const { pricebookRevision: _added, ...before } = body;
    return before;
  },
};
