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
