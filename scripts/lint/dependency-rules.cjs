// The layer rules of docs/architecture.md, written once and checked by dependency-cruiser on every
// `npm test` (scripts/test.ts), so a wrong import fails the run instead of waiting for a review:
//
//   domain/      the rules of the business, pure: imports nothing of ours (every layer may import it);
//                from npm only zod, decimal.js and canonicalize
//   db/          SQL: imports domain/ only
//   infra/       what the API and the worker share (settings, logging, Temporal clients, provider
//                clients, the event dispatcher, email): imports db/ and domain/
//   activities/  what Temporal runs as activities: imports infra/, db/ and domain/
//   workflows/   values from domain/ and workflows/ only, types from activities/ and infra/;
//                no Node built-ins, nothing that does I/O
//   api/         HTTP: imports infra/, db/ and domain/ (never activities/, workflows/ or worker/)
//   worker/      composes activities/, workflows/, infra/, db/ and domain/ (never api/)
//   scripts/, bench/  may use the product, never test code
//
// test/tooling/layer-rules.test.ts proves each rule fires on a deliberately wrong import.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-nothing-of-ours',
      comment: 'domain/ holds the rules of the business as pure code that every layer, workflows included, imports.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^(api|activities|infra|workflows|worker|db|scripts|bench|test)/' },
    },
    {
      name: 'domain-does-no-io',
      comment: 'domain/ reads no clock, file or network: no Node built-ins, and from npm only pure libraries (zod, decimal.js, canonicalize).',
      severity: 'error',
      from: { path: '^domain/' },
      to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], dependencyTypesNot: ['type-only'], pathNot: 'node_modules/(zod|decimal\\.js|canonicalize)/' },
    },
    {
      name: 'db-imports-only-domain',
      comment: 'db/ is SQL: it stores what domain/ decides and imports nothing else of ours.',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(api|activities|infra|workflows|worker|scripts|bench|test)/' },
    },
    {
      name: 'infra-imports-only-db-and-domain',
      comment: 'infra/ is the I/O the API and the worker share; it never reaches up into activities/, api/, workflows/ or worker/.',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^(api|activities|workflows|worker|scripts|bench|test)/' },
    },
    {
      name: 'activities-never-reach-up',
      comment: 'activities/ does the I/O Temporal runs, on top of infra/, db/ and domain/; never api/, workflows/ or worker/.',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^(api|workflows|worker|scripts|bench|test)/' },
    },
    {
      name: 'workflows-take-only-types-from-activities-and-infra',
      comment: 'Workflow code is deterministic and bundled on its own: types from activities/ and infra/, values only from domain/ and workflows/.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^(activities|infra)/', dependencyTypesNot: ['type-only'] },
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
      name: 'api-never-uses-activities-workflows-or-worker',
      comment: 'The API starts workflows through infra/temporal (typed by the contracts), never by importing them, and runs no activity itself.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^(activities|workflows|worker|scripts|bench|test)/' },
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
      from: { path: '^(api|activities|infra|workflows|worker|db|domain)/' },
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
