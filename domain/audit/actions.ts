/**
 * Every administrative change the audit log records (D22), as a closed list: a new kind of
 * change adds its action here, so `GET /api/v1/audit-events?action=` and the docs name exactly
 * what can appear. The name is `<entity>.<what happened>`.
 */
export const AUDIT_ACTIONS = [
  // the team (D20)
  'user.invited',
  'user.invitation_resent',
  'user.invitation_accepted',
  'user.updated',
  'user.profile_updated',
  'user.password_changed',
  'user.password_reset_requested',
  'user.password_reset',
  // tenants, plans and settings (D22, D15)
  'organization.created',
  'organization.updated',
  'organization.plan_changed',
  'organization.suspended',
  'organization.resumed',
  // the price book (D21)
  'pricebook.published',
  'pricebook.scheduled',
  // webhook endpoints and their secrets (D13)
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.recovered',
  // integrations (D18)
  'integration.connected',
  'integration.disconnected',
  // a job's customer, which its completion invoice is billed to (D11)
  'work_order.customer_changed',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ENTITY_TYPES = ['user', 'organization', 'pricebook', 'webhook_endpoint', 'integration', 'work_order'] as const;
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];
