import { NativeConnection } from '@temporalio/worker';
import { installQuietRuntime } from './runtime';

/** Connects, retrying for a while: the development server may still be starting. */
export async function connectWorker(address: string, attempts = 30): Promise<NativeConnection> {
  installQuietRuntime();
  for (let attempt = 1; ; attempt++) {
    try {
      return await NativeConnection.connect({ address });
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
