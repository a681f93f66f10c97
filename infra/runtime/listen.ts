import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` on `port` (0: any free one) and `host`, and answers its base address
 * (`http://127.0.0.1:43817`, an IPv6 host in brackets). A port taken is the listen error, thrown.
 */
export async function listenOn(server: Server, port: number, host: string | undefined): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}`;
}
