import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { startMailCatcher } from '../../scripts/infra/mail-catcher';
import { freePort } from '../../scripts/infra/free-port';

describe('the mail catcher (MailDev on 127.0.0.1)', () => {
  it('starts on ports of its own and answers an empty list of messages', async () => {
    const catcher = await startMailCatcher();
    try {
      expect(catcher.smtpUrl).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
      expect(await catcher.messages()).toEqual([]);
    } finally {
      await catcher.stop();
    }
  }, 60_000);

  it('names the ports when one it was given is taken, and does not wait the full minute for it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const smtp = (taken.address() as { port: number }).port;
    const web = await freePort();
    try {
      await expect(startMailCatcher({ smtp, web })).rejects.toThrow(`the mail catcher exited at start (is 127.0.0.1:${smtp} or 127.0.0.1:${web} taken?)`);
    } finally {
      taken.close();
    }
  }, 60_000);
});
