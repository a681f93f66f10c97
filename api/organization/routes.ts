import { route, type RouteHost } from '../http/route';
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
    summary: 'The workspace, with its technical contact',
    description: 'D13: the technical contact is emailed when a webhook endpoint is disabled. Unless set, it is the first ADMIN\'s email.',
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
    summary: 'Set the technical contact (null returns to the first ADMIN\'s email)',
    description: 'D13: `technical_contact_email` must be an email address (422 otherwise, nothing stored); null clears it, so the first ADMIN\'s email is used.',
    tags: ['organization'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    body: UpdateOrganizationBody,
    bodyExample: UPDATE_ORGANIZATION_EXAMPLE,
    responses: { 200: { description: 'Updated', schema: Organization, example: ORGANIZATION_EXAMPLE }, 422: error('Not an email address') },
    handler: async ({ res, caller, body }) => {
      res.json(await deps.organizations.update(caller, body));
    },
  });
}
