import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY } from '../http/roles';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import { linkNext, PageHeaders } from '../http/pagination';
import type { AuditService } from './audit-service';
import { AuditEventList, AuditEventQuery } from './schemas';
import { AUDIT_EVENT_LIST_EXAMPLE } from './examples';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

/** D22: the audit log, ADMIN only, the caller's tenant only. */
export function auditRoutes(host: RouteHost, deps: { audit: AuditService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/audit-events',
    operationId: 'listAuditEvents',
    summary: 'Every administrative change, newest first, field by field',
    description:
      'One event per change to users and roles, invitations, password resets (that one happened, never the token), the price book, webhook endpoints ' +
      '(a rotation, never the secret), integrations, organization settings, plans and suspensions; written in the same transaction as the change. ' +
      'Narrow by `entity_type` and `entity_id`, `actor_id`, `action` or `since`. At most `limit` per page: while more follow, the `Link` header names the next page.',
    tags: ['audit'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    query: AuditEventQuery,
    responses: {
      200: { description: 'A page of audit events', schema: AuditEventList, example: AUDIT_EVENT_LIST_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
      422: error('A filter out of its bounds, at its parameter'),
    },
    handler: async ({ req, res, caller, query }) => {
      const { data, next } = await deps.audit.list(caller, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });
}
