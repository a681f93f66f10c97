import type { z } from 'zod';
import type { AuditEventList } from './schemas';

export const AUDIT_EVENT_LIST_EXAMPLE: z.input<typeof AuditEventList> = {
  data: [
    {
      id: '7c1e2f3a-4b5d-4e6f-8a9b-0c1d2e3f4a5b',
      occurred_at: '2026-11-27T14:03:12.481Z',
      actor: { type: 'user', id: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c', email: 'owner@brightline.example' },
      action: 'user.updated',
      entity_type: 'user',
      entity_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      changes: [{ field: 'role', before: 'SALES', after: 'ADMIN' }],
      request_id: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
    },
    {
      id: '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a',
      occurred_at: '2026-11-27T13:58:40.002Z',
      actor: { type: 'operator', id: null, email: null },
      action: 'organization.plan_changed',
      entity_type: 'organization',
      entity_id: '0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c',
      changes: [{ field: 'plan', before: 'starter', after: 'growth' }],
      request_id: null,
    },
  ],
};
