import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { route, type RouteHost } from '../http/route';

/**
 * D13's deliveries page, served by the deployment itself: one HTML page, its script and its
 * stylesheet, all from this folder (no CDN, no fonts, nothing external). The page calls only the
 * public API, with the bearer token its own sign-in form obtains. Public routes: the page holds
 * no data until its visitor signs in.
 */
const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
export const DEVELOPER_PAGE = { html: asset('webhooks.html'), script: asset('webhooks.js'), style: asset('webhooks.css') };

export function developerRoutes(host: RouteHost): void {
  const text = (description: string, contentType: string, body: string) => ({ 200: { description, schema: z.string(), contentType, example: body.slice(0, 200) } });
  route(host, {
    method: 'get',
    path: '/developer/webhooks',
    operationId: 'getWebhookDeliveriesPage',
    summary: 'The webhook deliveries page: endpoints, deliveries, each attempt, Replay',
    description:
      'Sign in with workspace, email and password (an ADMIN); the endpoints with their status; the deliveries newest first, filtered by ' +
      'endpoint, status and event; each attempt\'s request and response; and a Replay button. It uses only this public API.',
    tags: ['webhooks'],
    auth: 'none',
    responses: text('HTML page', 'text/html', DEVELOPER_PAGE.html),
    handler: ({ res }) => {
      res.type('html').send(DEVELOPER_PAGE.html);
    },
  });
  route(host, {
    method: 'get',
    path: '/developer/assets/webhooks.js',
    operationId: 'getWebhookDeliveriesPageScript',
    documented: false,
    summary: 'Script of the webhook deliveries page',
    description: 'Served by this app so that the page\'s Content-Security-Policy allows no inline or external script.',
    tags: ['webhooks'],
    auth: 'none',
    responses: text('JavaScript', 'application/javascript', DEVELOPER_PAGE.script),
    handler: ({ res }) => {
      res.type('application/javascript').send(DEVELOPER_PAGE.script);
    },
  });
  route(host, {
    method: 'get',
    path: '/developer/assets/webhooks.css',
    operationId: 'getWebhookDeliveriesPageStyle',
    documented: false,
    summary: 'Stylesheet of the webhook deliveries page',
    description: 'Served by this app: the page loads nothing from elsewhere.',
    tags: ['webhooks'],
    auth: 'none',
    responses: text('CSS', 'text/css', DEVELOPER_PAGE.style),
    handler: ({ res }) => {
      res.type('text/css').send(DEVELOPER_PAGE.style);
    },
  });
}
