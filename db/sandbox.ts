/**
 * D1: the sandbox tenants and demo users. Data, so that the seed, the tests and the README
 * all read the same table.
 */
export const SANDBOX_PASSWORD = 'Sandbox!2026';

export const SANDBOX_TENANTS = [
  { subdomain: 'sandbox', name: 'Sandbox Shade Co.', marginFloor: '0.35' },
  { subdomain: 'sandbox-alt', name: 'Sandbox Alt Blinds Ltd.', marginFloor: '0.30' },
] as const;

export const SANDBOX_USERS = [
  { email: 'admin@sandbox.test', fullName: 'Avery Admin', role: 'ADMIN', active: true },
  { email: 'sales@sandbox.test', fullName: 'Sam Sales', role: 'SALES', active: true },
  { email: 'tech@sandbox.test', fullName: 'Taylor Tech', role: 'TECHNICIAN', active: true },
  { email: 'tech2@sandbox.test', fullName: 'Toni Tech', role: 'TECHNICIAN', active: true },
  { email: 'inactive-tech@sandbox.test', fullName: 'Indy Inactive', role: 'TECHNICIAN', active: false },
] as const;

/** D11: two crews per sandbox tenant, each led by a sandbox technician (members by email). */
export const SANDBOX_CREWS = [
  { name: 'Crew North', foreman: 'tech@sandbox.test', members: ['tech@sandbox.test'] },
  { name: 'Crew South', foreman: 'tech2@sandbox.test', members: ['tech2@sandbox.test'] },
] as const;
