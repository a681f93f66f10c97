import { say } from './infra/log';
import { runJest } from './infra/jest';
import { SAMPLED_PROPERTY_RUNS } from './harness/property-runs';

/**
 * `npm run test:unit`: the product's tests that need no service (Jest project `unit`, see
 * jest.config.js), with nothing started: no PostgreSQL, Temporal, stripe-mock or Chromium, no
 * type-check and no lint (`npm test` runs all of those and every project). Extra arguments go to
 * Jest. Files named there may be in any project that needs no service (`unit`, `tooling`,
 * `fakes`): `npm run test:unit -- test/tooling/supervisor.test.ts`. Property tests draw a seeded
 * prefix of their cases here (scripts/harness/property-runs.ts); `npm test` draws them all.
 */
const STACK_FREE_PROJECTS = ['unit', 'tooling', 'fakes'] as const;

const args = process.argv.slice(2);
const namesFiles = args.some((arg) => /(^|\/)test\/|\.test\.ts$/.test(arg));
const projects = namesFiles ? STACK_FREE_PROJECTS : (['unit'] as const);

say(`running the tests that need no service (jest project${projects.length > 1 ? 's' : ''} ${projects.join(', ')})`);
// The caller's arguments first: Jest's --selectProjects takes every word after it as a project.
process.exit(await runJest([...args, '--selectProjects', ...projects], { [SAMPLED_PROPERTY_RUNS]: 'sampled' }));
