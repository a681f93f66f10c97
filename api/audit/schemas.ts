import { z } from 'zod';
import { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES } from '../../domain/audit/actions';
import { CursorParam } from '../http/pagination';
import { Timestamp, Uuid } from '../http/common-schemas';
import { instant } from '../http/date-schemas';

export const AuditEventQuery = z.strictObject({
  entity_type: z.enum(AUDIT_ENTITY_TYPES).optional(),
  entity_id: z.string().min(1).max(200).optional(),
  actor_id: Uuid.optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  since: instant('Only events at or after this instant (ISO-8601 with an offset).').optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: CursorParam,
});
export type AuditEventQuery = z.output<typeof AuditEventQuery>;

export const AuditEvent = z
  .object({
    id: Uuid,
    occurred_at: Timestamp,
    actor: z.object({
      type: z.enum(['user', 'operator', 'system']),
      id: Uuid.nullable(),
      email: z.string().nullable(),
    }),
    action: z.enum(AUDIT_ACTIONS),
    entity_type: z.enum(AUDIT_ENTITY_TYPES),
    entity_id: z.string(),
    changes: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })),
    request_id: z.string().nullable(),
  })
  .meta({ id: 'AuditEvent' });
export type AuditEvent = z.output<typeof AuditEvent>;

export const AuditEventList = z.object({ data: z.array(AuditEvent) }).meta({ id: 'AuditEventList' });
