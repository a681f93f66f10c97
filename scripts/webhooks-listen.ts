import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { loadDotEnv } from './infra/dotenv';
import { verifySignature } from '../infra/webhooks/signature';
import { EVENTS_HEADERS, FIELD_HEADERS } from '../domain/webhooks/formats';
import { WEBHOOK_HEADERS } from '../domain/webhooks/headers';
import { SANDBOX_PASSWORD } from '../db/sandbox';

/**
 * `npm run webhooks:listen`: a local receiver for trying outbound webhooks, like Stripe's
 * `stripe listen`. It listens on 127.0.0.1, registers itself as an endpoint for every event
 * through the API (as the sandbox admin unless told otherwise) and keeps the signing secret in
 * memory, prints each delivery with whether its signature verified, and removes the endpoint
 * when stopped (Ctrl-C). With --secret it registers nothing and verifies deliveries to an
 * endpoint you registered yourself. Deliveries to loopback need OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK,
 * which `npm start` turns on in development.
 */
const HELP = `usage: npm run webhooks:listen [-- options]

  --port N            listen on 127.0.0.1:N (default: any free port)
  --api URL           the API (default http://127.0.0.1:$PORT, PORT defaulting to 3000)
  --workspace NAME    log in to this workspace to register the endpoint (default sandbox)
  --email EMAIL       as this ADMIN (default admin@sandbox.test)
  --password TEXT     with this password (default the sandbox's)
  --events LIST       comma-separated event names to subscribe to (default *)
  --format FORMAT     the payload format to register: core, field or events (default core)
  --secret WHSEC      register nothing: verify deliveries with this endpoint secret instead
  --keep              leave the endpoint registered on exit
`;

loadDotEnv();
const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    api: { type: 'string', default: `http://127.0.0.1:${process.env.PORT || '3000'}` },
    workspace: { type: 'string', default: 'sandbox' },
    email: { type: 'string', default: 'admin@sandbox.test' },
    password: { type: 'string', default: SANDBOX_PASSWORD },
    events: { type: 'string', default: '*' },
    format: { type: 'string', default: 'core' },
    secret: { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const api = args.api.replace(/\/+$/, '');
if (!['core', 'field', 'events'].includes(args.format)) {
  process.stderr.write(`webhooks:listen: --format is core, field or events, not "${args.format}"\n`);
  process.exit(1);
}
const print = (line: string) => process.stdout.write(`${line}\n`);
const fail = (message: string): never => {
  process.stderr.write(`webhooks:listen: ${message}\n`);
  process.exit(1);
};

async function apiCall(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(`${api}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    return fail(`the API at ${api} does not answer (${error instanceof Error ? error.message : String(error)}); is npm start running?`);
  }
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const errorMessage = (json: Record<string, unknown>) => String((json.error as { message?: unknown } | undefined)?.message ?? JSON.stringify(json));

async function logIn(): Promise<string> {
  const { status, json } = await apiCall('POST', '/api/v1/auth/login', undefined, { subdomain: args.workspace, email: args.email, password: args.password });
  if (status !== 200) return fail(`logging in as ${args.email} to "${args.workspace}" answered ${status}: ${errorMessage(json)}`);
  return String(json.access_token);
}

// The receiver first: the endpoint's URL needs its port.
let secret = args.secret;
const server = createServer((req, res) => void receive(req, res));
await new Promise<void>((resolve, reject) => {
  server.once('error', (error) => reject(error));
  server.listen(Number(args.port), '127.0.0.1', () => resolve());
}).catch((error: unknown) => fail(`cannot listen on 127.0.0.1:${args.port}: ${error instanceof Error ? error.message : String(error)}`));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

let endpointId: string | undefined;
if (!secret) {
  const token = await logIn();
  const events = args.events.split(',').map((e) => e.trim()).filter(Boolean);
  const { status, json } = await apiCall('POST', '/api/v1/webhook-endpoints', token, { url, events, format: args.format, description: `npm run webhooks:listen on ${url}` });
  if (status !== 201) {
    const hint = /public|https/.test(errorMessage(json)) ? ' (this API refuses loopback receivers: npm start allows them in development, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK=true)' : '';
    server.close();
    fail(`registering ${url} answered ${status}: ${errorMessage(json)}${hint}`);
  }
  endpointId = String(json.id);
  secret = String(json.secret);
  print(`Ready: endpoint ${endpointId} (${events.join(', ')}, ${args.format} format) delivers to ${url}; its signing secret is kept in memory.`);
} else {
  print(`Ready: listening on ${url}, verifying with the secret given.`);
}
print('Each delivery is printed below. Ctrl-C stops' + (endpointId && !args.keep ? ' and removes the endpoint.' : '.'));

async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  // Every format signs alike; the header's name is the format's (core and field X-Service-Signature, events Service-Signature).
  const header = req.headers[WEBHOOK_HEADERS.signature.toLowerCase()] ?? req.headers[EVENTS_HEADERS.signature.toLowerCase()];
  const verdict = typeof header === 'string' && secret ? verifySignature(header, body, secret) : ({ ok: false, reason: 'no_signature_header' } as const);
  const parsed = parseBody(body.toString('utf8'));
  // core names the event and delivery in headers; field in `event` and X-Service-Event-Id; events in `type` and `id`.
  const event = req.headers[WEBHOOK_HEADERS.event.toLowerCase()] ?? parsed?.event ?? parsed?.type ?? '(no event named)';
  const delivery = req.headers[WEBHOOK_HEADERS.delivery.toLowerCase()] ?? req.headers[FIELD_HEADERS.eventId.toLowerCase()] ?? parsed?.id ?? '(no delivery id)';
  const time = new Date().toISOString().replace('T', ' ').slice(0, 19);
  print(`${time}  ${req.method} ${req.url}  ${String(event)}  delivery ${String(delivery)}  ${verdict.ok ? 'signature verified' : `signature NOT verified (${verdict.reason})`}`);
  if (event === 'dispatch.updated' && parsed) print(`  ${dispatchSummary(parsed)}`);
  print(`  ${body.toString('utf8').slice(0, 2000)}`);
  // As a receiver should: 2xx only for what verified (a 400 shows in the delivery log).
  res.writeHead(verdict.ok ? 200 : 400, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ received: verdict.ok }));
}

type Body = { event?: string; type?: string; id?: string; data?: Record<string, unknown> & { object?: Record<string, unknown>; previousAttributes?: Record<string, unknown> | null } };
function parseBody(text: string): Body | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as Body) : undefined;
  } catch {
    return undefined;
  }
}

/** One line for a route's change, whatever the format: the events format nests the object, field and core carry it as `data`. */
function dispatchSummary(body: Body): string {
  const route = body.data?.object ?? body.data ?? {};
  const previous = body.data?.object ? body.data.previousAttributes : (body.data?.previousAttributes as Record<string, unknown> | null | undefined);
  const stops = Array.isArray(route.stops) ? route.stops.length : '?';
  return `route ${String(route.id)} on ${String(route.date)}, revision ${String(route.revision)}, ${String(route.changeReason)}, ${stops} stops; changed: ${previous ? Object.keys(previous).join(', ') || 'nothing' : 'nothing'}`;
}

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  if (endpointId && !args.keep) {
    // The listener may have outlived its first access token (900 s): log in again.
    const { status } = await apiCall('DELETE', `/api/v1/webhook-endpoints/${endpointId}`, await logIn());
    print(status === 204 ? `Removed endpoint ${endpointId}.` : `Could not remove endpoint ${endpointId} (${status}); delete it with the API.`);
  }
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
