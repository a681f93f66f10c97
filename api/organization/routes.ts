import { route, type RouteHost } from '../http/route';
import { auditContext } from '../http/audit-actor';
import { ADMIN_ONLY } from '../http/roles';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import type { OrganizationService } from './organization-service';
import { Organization, UpdateOrganizationBody } from './schemas';
import { ORGANIZATION_EXAMPLE, UPDATE_ORGANIZATION_EXAMPLE } from './examples';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

/** D13: the workspace's settings, ADMIN only. */
export function organizationRoutes(host: RouteHost, deps: { organizations: OrganizationService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/organization',
    operationId: 'getOrganization',
    summary: 'The workspace, with its technical contact and settings',
    description: 'The technical contact is emailed when a webhook endpoint is disabled. Unless set, it is the first ADMIN\'s email. The settings of quoting, the working day and routing, every default applied.',
    tags: ['organization'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    responses: { 200: { description: 'The workspace', schema: Organization, example: ORGANIZATION_EXAMPLE } },
    handler: async ({ res, caller }) => {
      res.json(await deps.organizations.get(caller));
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/organization',
    operationId: 'updateOrganization',
    summary: 'Change the workspace\'s settings and technical contact',
    description:
      'Only the fields named change; each is validated (422 with the dotted path of the first complaint, nothing stored). `technical_contact_email` must be an email address; null clears it, so the first ADMIN\'s email is used. `time_zone` is an IANA name and `working_day_start` `HH:mm`; `quote_validity_days` 1-365; `depot` WGS84 (`lat` -90..90, `lon` -180..180; null clears it), `road_factor` 1-3 (two decimals), `average_speed_kmh` 5-130, `overtime_cap_minutes` 0-480, `eta_drift_threshold_minutes` 1-240, `dispatch_coalesce_seconds` 0-300. Every change is audited with each field\'s before and after.',
    tags: ['organization'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    body: UpdateOrganizationBody,
    bodyExample: UPDATE_ORGANIZATION_EXAMPLE,
    responses: { 200: { description: 'Updated', schema: Organization, example: ORGANIZATION_EXAMPLE }, 422: error('A setting out of its bounds, or not an email address') },
    handler: async ({ req, res, caller, body }) => {
      res.json(await deps.organizations.update(caller, body, auditContext(req)));
    },
  });
}
