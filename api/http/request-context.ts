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
  }
}
