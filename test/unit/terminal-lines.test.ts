import { describe, expect, it } from '@jest/globals';
import { PassThrough, Writable } from 'node:stream';
import { createLogger } from '../../infra/runtime/logger';
import { PinoTemporalLogger } from '../../worker/temporal-logger';
import { readableLines, terminalLine } from '../../scripts/infra/terminal-lines';

/** What the real loggers write for one call, as the lines `npm start` reads from a service. */
function linesOf(write: (logger: ReturnType<typeof createLogger>) => void): string[] {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  write(createLogger('info', sink));
  return lines;
}

const TASK_TOKEN = 'CiQ5ZDc3YjU0Ny1mZWQ2LTQ4ZDItYjQzYS1iZGM0OTQzOGU4NTESHnF1b3RlLWFwcHJvdmFsLTEyMzQ1Njc4OTAxMjM0NRokMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwIAUoATIBMUIMc2VuZEludm9pY2U';

describe("npm start's terminal: one readable line per log line", () => {
  it("a Temporal activity failure: what, its workflow and activity, no stack, no task token", () => {
    const error = new Error('the payments sandbox answered 500\n    extra detail line');
    error.stack = `${error.message}\n${'    at sendInvoice (activities/payments/invoice.ts:42:11)\n'.repeat(40)}`;
    const [raw] = linesOf((logger) =>
      new PinoTemporalLogger(logger).warn('Activity failed', {
        workflowId: 'quote-approval-7d1f0c2a-1b7e-4c55-9a3e-2f1c1d9e8b70',
        runId: '0193a1f2-2b3c-7d4e-8f90-1a2b3c4d5e6f',
        activityType: 'sendInvoice',
        attempt: 3,
        taskToken: TASK_TOKEN,
        organization_id: 'b5b0a1de-4c7e-4f8e-9d2a-3c1b0e9f8a7d',
        error,
      }),
    );
    expect(raw!.length).toBeGreaterThan(2_000);
    const line = terminalLine(raw!, 'worker');
    expect(line).toMatch(/^\d\d:\d\d:\d\d WARN  worker Activity failed: the payments sandbox answered 500 \[workflow quote-approval-7d1f0c2a-1b7e-4c55-9a3e-2f1c1d9e8b70, activity sendInvoice, attempt 3, tenant b5b0a1de-4c7e-4f8e-9d2a-3c1b0e9f8a7d\]$/);
    expect(line).not.toContain(TASK_TOKEN);
    expect(line).not.toContain(' at ');
    expect(line.length).toBeLessThan(300);
  });

  it('an API warning names its request and says why', () => {
    const [raw] = linesOf((logger) => logger.child({ request_id: 'req-42' }).warn({ reason: 'connect ECONNREFUSED 127.0.0.1:5432', path: '/api/v1/quotes' }, 'database unreachable; answered 503'));
    expect(terminalLine(raw!, 'api')).toMatch(/^\d\d:\d\d:\d\d WARN  api    database unreachable; answered 503: connect ECONNREFUSED 127\.0\.0\.1:5432 \[request req-42, path \/api\/v1\/quotes\]$/);
  });

  it('text that is not a JSON log line passes unchanged', () => {
    for (const text of ['Listening on http://127.0.0.1:3000', '[1, 2]', '{"unterminated": ', '']) expect(terminalLine(text, 'api')).toBe(text);
  });

  it('reads a stream line by line, a line split across chunks included', async () => {
    const input = new PassThrough();
    let written = '';
    const out = new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    });
    readableLines(input, out, 'api');
    const [raw] = linesOf((logger) => logger.error({ err: new Error('boom') }, 'request failed'));
    input.write(raw!.slice(0, 20));
    input.write(`${raw!.slice(20)}\nplain text\n`);
    input.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.split('\n')).toEqual([expect.stringMatching(/ERROR api    request failed: boom$/), 'plain text', '']);
  });
});
