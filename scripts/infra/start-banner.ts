import type { Settings } from '../../infra/runtime/settings';
import type { SandboxEndpoint } from '../sandboxes/sandboxes';

export interface BannerInput {
  api: string;
  settings: Settings;
  temporalUiUrl: string | undefined;
  sandboxes: readonly SandboxEndpoint[];
  /** The local mail catcher's web UI, when npm start runs one (D13). */
  mailCatcherUrl?: string | undefined;
  /** How long start-up took from the user's command, e.g. "48 s" (scripts/infra/log.ts, readyIn). */
  readyIn: string;
}

const REAL: Record<SandboxEndpoint['slug'], string> = {
  payments: 'the real provider (PAYMENTS_SECRET_KEY is set)',
  accounting: 'the real provider (ACCOUNTING_CLIENT_ID is set)',
  crm: 'the real provider (CRM_CLIENT_ID is set)',
};

/** What `npm start` prints once everything answers: where things are and what to try first. */
export function startBanner(input: BannerInput): string {
  const { api, settings } = input;
  const providers = (['payments', 'accounting', 'crm'] as const).map((slug) => {
    const sandbox = input.sandboxes.find((s) => s.slug === slug);
    return `    ${slug.padEnd(11)} ${sandbox ? `SANDBOX ${sandbox.url}  ${sandbox.label}` : REAL[slug]}`;
  });
  const lines = [
    '',
    `Shade Office is ready (${input.readyIn}).`,
    `  API               ${api}${settings.API_HOST === '127.0.0.1' ? '  (this machine only; API_HOST=0.0.0.0 opens it to the network)' : ''}`,
    `  OpenAPI document  ${api}/openapi.json`,
    `  API reference     ${api}/docs`,
    `  Deliveries page   ${api}/developer/webhooks`,
    `  Temporal web UI   ${input.temporalUiUrl ?? '(not started here: TEMPORAL_ADDRESS is set)'}`,
    `  Mail              ${input.mailCatcherUrl ? `${input.mailCatcherUrl}  (local mail catcher: every email sent lands here)` : settings.SMTP_URL ? 'through SMTP_URL' : 'not sent (no SMTP_URL)'}`,
    `  Sandbox login     workspace "sandbox", admin@sandbox.test / Sandbox!2026 (see README)`,
    '  Providers',
    ...providers,
  ];
  if (input.sandboxes.length > 0) {
    lines.push('    Sandboxes are local stand-ins: nothing leaves this machine, and their state is kept in memory, forgotten when this stops.');
  }
  if (settings.OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK) {
    lines.push('  Webhooks          deliveries to loopback receivers allowed (development); watch them with: npm run webhooks:listen');
  }
  lines.push(
    '',
    'Try first, in another terminal:',
    `  curl -s ${api}/api/connectors`,
    '  then the README\'s "Try it" section, command by command.',
    'Press Ctrl-C to stop everything.',
    '',
  );
  return lines.join('\n') + '\n';
}
