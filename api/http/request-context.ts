import type { Request } from 'express';
import type { Logger } from 'pino';
import type { Role } from '../../db/entities/user';

/** What authentication established about the caller; the role is as the database says now. */
export interface Caller {
  userId: string;
  organizationId: string;
  role: Role;
  email: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    log: Logger;
    caller?: Caller;
    /** Validated input, set by api/http/validate.ts; handlers read these, never req.body. */
    valid: { body?: unknown; query?: unknown; params?: unknown };
  }
}

export function callerOf(req: Request): Caller {
  if (!req.caller) throw new Error('route declared as authenticated but no caller is set');
  return req.caller;
}
