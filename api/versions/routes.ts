import { z } from 'zod';
import { route, type RouteHost } from '../http/route';
import { CURRENT_VERSION, RELEASES, supportedUntil } from '../../domain/versions/versions';

export const VersionList = z
  .strictObject({
    current: z.string(),
    data: z.array(
      z.strictObject({
        version: z.string().meta({ description: 'YYYY-MM-DD, the value of Service-Version' }),
        current: z.boolean(),
        changelog: z.string().meta({ description: 'The row of the published changelog for this version' }),
        changes: z.array(z.string()).meta({ description: 'What this service changes in an answer to a request pinned to this version (or why nothing)' }),
        supported_until: z.string().nullable().meta({ description: 'Twelve months after the next version’s release; null for the current version' }),
        retired: z.boolean(),
        retired_on: z.string().nullable().meta({ description: 'When it stopped being served, once announced (never before supported_until)' }),
      }),
    ),
  })
  .meta({ id: 'VersionList' });

export function versionList(today = new Date()): z.output<typeof VersionList> {
  const day = today.toISOString().slice(0, 10);
  return {
    current: CURRENT_VERSION,
    data: RELEASES.map((release) => ({
      version: release.version,
      current: release.version === CURRENT_VERSION,
      changelog: release.changelog,
      changes: [...release.changes],
      supported_until: supportedUntil(release.version),
      retired: release.retiredOn !== undefined && day >= release.retiredOn,
      retired_on: release.retiredOn ?? null,
    })),
  };
}

/** D16: `GET /api/versions`, the changelog of dated versions (no token). */
export function versionRoutes(host: RouteHost): void {
  route(host, {
    method: 'get',
    path: '/api/versions',
    operationId: 'listVersions',
    summary: 'The dated API versions, their changes and how long each is supported',
    description:
      'Send `Service-Version: YYYY-MM-DD` on a request to be answered in that version; without it the workspace’s pinned version applies ' +
      '(the current one at its first request). Every answer under /api/v1 and /v1 says its version in `Service-Version`. A version is supported twelve months after the next one’s release, and retired only after that, once listed here.',
    tags: ['infrastructure'],
    auth: 'none',
    responses: { 200: { description: 'The versions, newest first', schema: VersionList, example: versionList(new Date('2026-11-23T00:00:00Z')) } },
    handler: ({ res }) => {
      res.json(versionList());
    },
  });
}
