// Jest runs our TypeScript as native ES modules (MikroORM 7 and jose are ESM-only), transformed
// by SWC. Test files sit in one project per what they need to run:
//   unit      test/unit/      the product's rules and modules alone: no service at all
//   tooling   test/tooling/   our tools (Dockerfile, compose, toolchain, supervisor, lint, ...)
//   fakes     test/fakes/     the provider fakes the sandboxes and tests use
//   services  test/tooling/services/  tools that start PostgreSQL or the whole stack themselves
//   integration  test/integration/  the product end to end: PostgreSQL, Temporal, stripe-mock, Chromium
// `npm run test:unit` runs `unit` with nothing started (scripts/test-unit.ts), and any file of
// `unit`, `tooling` or `fakes` named after `--`; `npm test` starts PostgreSQL and Temporal, passes
// their addresses in the environment and runs every project (scripts/test.ts). One file:
// `npm run test:unit -- test/unit/quote-status.test.ts`, or
// `npm test -- test/integration/approval.test.ts` for one that needs the stack.
const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2024' }, module: { type: 'es6' } }],
  },
};
const project = (displayName, testMatch, testPathIgnorePatterns = []) => ({ ...shared, displayName, testMatch, testPathIgnorePatterns: ['/node_modules/', ...testPathIgnorePatterns] });

export default {
  projects: [
    project('unit', ['<rootDir>/test/unit/**/*.test.ts']),
    project('tooling', ['<rootDir>/test/tooling/**/*.test.ts'], ['<rootDir>/test/tooling/services/']),
    project('fakes', ['<rootDir>/test/fakes/**/*.test.ts']),
    project('services', ['<rootDir>/test/tooling/services/**/*.test.ts']),
    project('integration', ['<rootDir>/test/integration/**/*.test.ts']),
  ],
  testTimeout: 60_000,
  // Two cores on our machines: two workers, each with its own database pool.
  maxWorkers: 2,
};
