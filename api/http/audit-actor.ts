import type { Request } from 'express';
import type { AuditActor } from '../../domain/audit/audit-entry';

/** Who an audited change of this request is by (D22): the signed-in user, and the request id that ties the event to the logs. */
export function auditContext(req: Request): { actor: AuditActor; requestId: string } {
  const caller = req.caller;
  return {
    actor: caller ? { type: 'user', id: caller.userId, email: caller.email } : { type: 'system', id: null, email: null },
    requestId: req.requestId,
  };
}
