import { z } from 'zod';
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
      'Only the fields named change; each is validated (422 with the dotted path of the first complaint, nothing stored). `technical_contact_email` must be an email address; null clears it, so the first ADMIN\'s email is used. `time_zone` is an IANA name and `working_day_start` `HH:mm`; `quote_validity_days` 1-365; `depot` WGS84 (`lat` -90..90, `lon` -180..180; null clears it), `road_factor` 1-3 (two decimals), `average_speed_kmh` 5-130, `overtime_cap_minutes` 0-480, `eta_drift_threshold_minutes` 1-240, `dispatch_coalesce_seconds` 0-300; `business_address` up to 500 characters and `business_phone` a phone number (null clears either; quotes show them), `quote_terms` up to 4,000 characters (null returns to the default). Every change is audited with each field\'s before and after.',
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

  route(host, {
    method: 'put',
    path: '/api/v1/organization/logo',
    operationId: 'putOrganizationLogo',
    summary: 'Upload the logo the workspace’s quotes show',
    description:
      'The body is the image itself, `image/png` or `image/jpeg` as its Content-Type says and its own bytes confirm, at most 256 KB and 2,000 pixels a side. ' +
      'It replaces any earlier logo. The customer’s quote page shows it from this app’s own origin (`/q/{token}/logo`) and the quote’s PDF embeds it. ' +
      'The change is audited by the image’s type, size and SHA-256 (never its bytes).',
    tags: ['organization'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    rawBody: { description: 'The PNG or JPEG image (`image/png` or `image/jpeg`)', schema: z.string().meta({ format: 'binary' }), example: '<the PNG bytes>', contentType: 'image/png' },
    responses: {
      200: { description: 'The workspace with its new logo', schema: Organization, example: ORGANIZATION_EXAMPLE },
      400: error('The body does not decode as its Content-Encoding says'),
      413: error('The image is larger than 256 KB'),
      415: error('The Content-Type is not image/png or image/jpeg'),
      422: error('The bytes are not the image the Content-Type names, or are damaged, or the image is larger than 2,000 pixels a side'),
    },
    handler: async ({ req, res, caller }) => {
      res.json(await deps.organizations.putLogo(caller, req.get('content-type'), req.body, auditContext(req)));
    },
  });

  route(host, {
    method: 'delete',
    path: '/api/v1/organization/logo',
    operationId: 'deleteOrganizationLogo',
    summary: 'Remove the logo; quotes then show none',
    description: 'Idempotent: without a logo it answers the same. Audited when a logo was removed.',
    tags: ['organization'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    responses: { 200: { description: 'The workspace without a logo', schema: Organization, example: { ...ORGANIZATION_EXAMPLE, logo: null } } },
    handler: async ({ req, res, caller }) => {
      res.json(await deps.organizations.deleteLogo(caller, auditContext(req)));
    },
  });
}
