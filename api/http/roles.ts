import type { Role } from '../../db/entities/user';

/** Who may call what (section 5.8, D4, D6): the role sets routes declare, kept in one place. */
export const ADMIN_ONLY = ['ADMIN'] as const satisfies readonly Role[];
/** The office: quotes, invoices and checkout. */
export const OFFICE = ['ADMIN', 'SALES'] as const satisfies readonly Role[];
/** Work-order status changes (D4: a technician only on their own). */
export const FIELD = ['ADMIN', 'TECHNICIAN'] as const satisfies readonly Role[];
