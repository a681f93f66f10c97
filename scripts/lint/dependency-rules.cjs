// The layer rules of DEVELOPERS.md, written once and checked by dependency-cruiser on every
// `npm test` (scripts/test.ts), so a wrong import fails the run instead of waiting for a review:
//
//   db/          imports nothing of ours
//   activities/  imports db/ (never api/, workflows/, worker/)
//   workflows/   imports only types from activities/ (and no Node built-ins, nothing that does I/O)
//   api/         imports activities/ and db/ (never workflows/ or worker/)
//   worker/      composes activities/, workflows/ and db/ (never api/)
//   scripts/, bench/  may use the product, never test code
//
// test/unit/layer-rules.test.ts proves each rule fires on a deliberately wrong import.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'db-imports-nothing-of-ours',
      comment: 'db/ is the bottom layer: the data and its rules.',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(api|activities|workflows|worker|scripts|bench|test)/' },
    },
    {
      name: 'activities-only-use-db',
      comment: 'activities/ does the I/O on top of db/; it never reaches up into api/, workflows/ or worker/.',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^(api|workflows|worker|scripts|bench|test)/' },
    },
    {
      name: 'workflows-take-only-types-from-activities',
      comment: 'Workflow code is deterministic and bundled on its own: types from activities/, values only from workflows/ itself.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-use-nothing-else-of-ours',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^(api|db|worker|scripts|bench|test)/' },
    },
    {
      name: 'workflows-use-no-node-built-ins',
      comment: 'The workflow sandbox has no Node built-ins; using one is non-deterministic I/O.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'workflows-use-only-the-workflow-sdk',
      comment: 'Only @temporalio/workflow and @temporalio/common are safe inside the sandbox.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['type-only'], pathNot: 'node_modules/@temporalio/(workflow|common)/' },
    },
    {
      name: 'api-never-uses-workflows-or-worker',
      comment: 'The API starts workflows through activities/temporal (typed by the contracts), never by importing them.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^(workflows|worker|scripts|bench|test)/' },
    },
    {
      name: 'worker-never-uses-api',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^(api|scripts|bench|test)/' },
    },
    {
      name: 'scripts-and-benchmarks-never-use-tests',
      severity: 'error',
      from: { path: '^(scripts|bench)/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^(api|activities|workflows|worker|db)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 has no JS API yet; SWC (already here for Jest) parses and tells type-only imports apart.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'] },
  },
};
