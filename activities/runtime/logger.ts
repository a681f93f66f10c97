import { pino, type Logger } from 'pino';

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
    },
    destination as pino.DestinationStream | undefined,
  );
}

export type { Logger };
