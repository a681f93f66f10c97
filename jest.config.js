// Jest runs our TypeScript as native ES modules (MikroORM 7 and jose are ESM-only), transformed
// by SWC. `npm test` starts PostgreSQL and Temporal first and passes their addresses in the
// environment (scripts/test.ts); run single files with `npm test -- test/path.test.ts`.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2024' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
  // Two cores on our machines: two workers, each with its own database pool.
  maxWorkers: 2,
};
