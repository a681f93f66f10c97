import { Worker } from 'node:worker_threads';

export interface TimedAnswer {
  status: number;
  text: string;
  /** From just before the request is written to the last byte of the answer read, in ms. */
  elapsed: number;
}

export interface TimedClient {
  time(path: string, init: { method: string; headers?: Record<string, string>; json?: unknown }): Promise<TimedAnswer>;
  close(): Promise<void>;
}

/**
 * The client of a timing test, in a thread of its own. A harness API runs in the test's process,
 * so work a server does after answering (a reset link issued behind a 202) shares the event loop
 * with an in-process client and would be timed as if it were part of the answer; a remote caller
 * never sees it. Here the clock starts and stops on the client's own event loop, which the
 * server's loop cannot hold up. One keep-alive connection, as login-timing's fetch uses.
 */
export function startTimedClient(baseUrl: string): TimedClient {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const base = new URL(workerData.baseUrl);
    parentPort.on('message', ({ id, path, method, headers, body }) => {
      const started = performance.now();
      const req = http.request({ host: base.hostname, port: base.port, path, method, agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const elapsed = performance.now() - started;
          parentPort.postMessage({ id, status: res.statusCode, text: Buffer.concat(chunks).toString('utf8'), elapsed });
        });
      });
      req.on('error', (error) => parentPort.postMessage({ id, error: String(error) }));
      req.end(body);
    });
    `,
    { eval: true, workerData: { baseUrl } },
  );
  worker.unref();
  const waiting = new Map<number, { resolve: (answer: TimedAnswer) => void; reject: (error: Error) => void }>();
  let next = 0;
  worker.on('message', (message: TimedAnswer & { id: number; error?: string }) => {
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) pending?.reject(new Error(message.error));
    else pending?.resolve({ status: message.status, text: message.text, elapsed: message.elapsed });
  });
  return {
    time: (path, init) =>
      new Promise<TimedAnswer>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        const body = init.json === undefined ? undefined : JSON.stringify(init.json);
        const headers = { ...(init.headers ?? {}), ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) };
        worker.postMessage({ id, path, method: init.method, headers, body });
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}
