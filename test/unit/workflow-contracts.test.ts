import { describe, expect, it } from '@jest/globals';
import * as workflows from '../../workflows';
import { WORKFLOW_TYPES } from '../../infra/temporal/contracts';

// Clients start workflows by the names in the contracts (infra/temporal/contracts.ts); the
// worker registers whatever workflows/index.ts exports. The two lists must be the same, or a start
// would name a workflow no worker knows.
describe('workflow contracts', () => {
  it('every contract names an exported workflow, and every exported workflow has a contract', () => {
    expect(Object.keys(workflows).sort()).toEqual(Object.values(WORKFLOW_TYPES).sort());
  });

  it('each export is registered under its contract name (the function name Temporal reads)', () => {
    for (const [name, fn] of Object.entries(workflows)) expect((fn as { name: string }).name).toBe(name);
  });
});
