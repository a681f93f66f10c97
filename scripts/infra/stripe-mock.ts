import { spawn } from 'node:child_process';
import { ensureGoTool } from './go-tool';
import { freePort, waitForPort } from './free-port';

/** Stripe's own API mock, pinned: it validates every request against Stripe's OpenAPI spec. */
export const STRIPE_MOCK_MODULE = 'github.com/stripe/stripe-mock@v0.203.0';

export function ensureStripeMock(): Promise<string> {
  return ensureGoTool(
    { binary: 'stripe-mock', module: STRIPE_MOCK_MODULE, purpose: 'stripe-mock', missing: 'Put stripe-mock on PATH or set STRIPE_MOCK_BIN.' },
    { explicit: process.env.STRIPE_MOCK_BIN },
  );
}

export async function startStripeMock(binary: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(binary, ['-http-addr', `127.0.0.1:${port}`], { stdio: 'ignore' });
  await waitForPort(port, '127.0.0.1', 20_000);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
