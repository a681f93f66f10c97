import { pino, type Logger } from 'pino';
import { currentLogContext } from './log-context';

/**
 * Structured JSON logs. Redaction is the safety net under the rule that secrets are never
 * logged: any field with one of these names is censored wherever it appears.
 */
const REDACT = [
  'password', '*.password', 'passwordHash', '*.passwordHash',
  'token', '*.token', 'access_token', '*.access_token', 'refresh_token', '*.refresh_token',
  'secret', '*.secret', 'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization',
  'cookie', '*.cookie',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'shade-office' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Inside an activity, every line carries its workflow id, run id and business ids
      // (infra/runtime/log-context.ts), except those the logger's own bindings already give.
      mixin: (_merge, _level, logger) => {
        const fields = currentLogContext()?.fields;
        if (!fields) return {};
        const bound = logger.bindings();
        return Object.fromEntries(Object.entries(fields).filter(([key]) => !(key in bound)));
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}

export type { Logger };
