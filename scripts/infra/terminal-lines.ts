import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/**
 * What `npm start` prints of its services' logs at its default level: one readable line per
 * warning or error, saying what happened, where (the workflow and activity, or the request) and
 * for which tenant, instead of a multi-kilobyte JSON object with stacks and task tokens. The full
 * JSON stays what the processes write in production and with `LOG_LEVEL=debug`.
 */

/** The context a reader needs, in the order it is shown, under the names it is shown with. */
const CONTEXT: readonly (readonly [field: string, label: string])[] = [
  ['workflow_id', 'workflow'],
  ['activity_type', 'activity'],
  ['attempt', 'attempt'],
  ['request_id', 'request'],
  ['method', 'method'],
  ['path', 'path'],
  ['subdomain', 'tenant'],
  ['organization_id', 'tenant'],
  ['organizationId', 'tenant'],
  ['provider', 'provider'],
  ['quote_id', 'quote'],
  ['quoteId', 'quote'],
];

const MAX_VALUE = 120;
const LEVELS: Record<string, string> = { '10': 'TRACE', '20': 'DEBUG', '30': 'INFO', '40': 'WARN', '50': 'ERROR', '60': 'FATAL' };

const clip = (text: string, max = MAX_VALUE) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const firstLine = (text: string) => text.split('\n', 1)[0]!.trim();

function errorText(err: unknown): string | undefined {
  if (!err || typeof err !== 'object') return typeof err === 'string' ? firstLine(err) : undefined;
  const error = err as { message?: unknown; type?: unknown; cause?: unknown };
  const message = typeof error.message === 'string' ? firstLine(error.message) : undefined;
  const cause = error.cause && typeof error.cause === 'object' ? errorText(error.cause) : undefined;
  return [message, cause && cause !== message ? `caused by: ${cause}` : undefined].filter(Boolean).join('; ') || undefined;
}

/** One JSON log line as one readable line; any other text as it is. */
export function terminalLine(raw: string, service: string): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return raw;
    entry = parsed as Record<string, unknown>;
  } catch {
    return raw;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const level = typeof entry.level === 'string' ? entry.level.toUpperCase() : LEVELS[String(entry.level)] ?? 'LOG';
  const what = typeof entry.msg === 'string' ? firstLine(entry.msg) : '';
  const why = errorText(entry.err) ?? (typeof entry.reason === 'string' ? firstLine(entry.reason) : undefined);
  const shown = new Set<string>();
  const context = CONTEXT.flatMap(([field, label]) => {
    const value = entry[field];
    if ((typeof value !== 'string' && typeof value !== 'number') || shown.has(label)) return [];
    shown.add(label);
    return [`${label} ${clip(String(value))}`];
  });
  return [time, level.padEnd(5), service.padEnd(6), clip(what, 200) + (why ? `: ${clip(why, 300)}` : ''), context.length ? `[${context.join(', ')}]` : '']
    .filter((part) => part !== '')
    .join(' ');
}

/** Copies a service's output to `out`, each JSON line made readable. */
export function readableLines(input: Readable, out: Writable, service: string): void {
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on('line', (line) => out.write(`${terminalLine(line, service)}\n`));
}
