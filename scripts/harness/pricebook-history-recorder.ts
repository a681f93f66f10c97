import type { temporal } from '@temporalio/proto';
import { createTenant, giveRateCard, ownerPool } from './owner-db';
import { startTemporalHarness, TEST_TIMING } from './temporal-harness';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { PricebookWorkflows } from '../../infra/temporal/pricebook-workflows';
import { pricebookPublicationWorkflowId, type PricebookPublicationOutcome } from '../../infra/temporal/contracts';

type History = temporal.api.history.v1.IHistory;

/**
 * D21: a future-dated price book revision's timer, run through its real path (the durable timer,
 * then the announcement recorded in the outbox). Used by scripts/record-histories.ts.
 */
export async function recordPricebookHistories(): Promise<Record<string, History>> {
  const owner = ownerPool();
  const harness = await startTemporalHarness();
  await harness.startWorker();
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN' });
    await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
    // A second revision, current two seconds from now (as the owner: the API's publication is tested elsewhere).
    const { rows } = await owner.query<{ id: string; effective_from: Date }>(
      `insert into rate_card_revisions (organization_id, effective_from, products_listed, margin_floor, fabric_waste_factor, labour_base_hours_per_unit,
         labour_hours_per_square_foot, labour_motorisation_hours, tube_deduction_inches, hembar_deduction_inches, fabric_width_deduction_inches, fabric_drop_allowance_inches)
       select organization_id, clock_timestamp() + interval '2 seconds', false, 0.4, fabric_waste_factor, labour_base_hours_per_unit, labour_hours_per_square_foot,
              labour_motorisation_hours, tube_deduction_inches, hembar_deduction_inches, fabric_width_deduction_inches, fabric_drop_allowance_inches
         from rate_card_revisions where organization_id = $1 returning id, effective_from`,
      [tenant.id],
    );
    const ref = { organizationId: tenant.id, revisionId: rows[0]!.id, effectiveFrom: new Date(rows[0]!.effective_from).toISOString() };
    await new PricebookWorkflows(harness.client, { taskQueue: harness.taskQueue, timing: TEST_TIMING }).schedule(ref);
    const handle = harness.client.workflow.getHandle(pricebookPublicationWorkflowId(ref));
    const outcome = (await handle.result()) as PricebookPublicationOutcome;
    if (!outcome.announced) throw new Error('the revision was not announced');
    return { 'pricebook-publication-announced': await handle.fetchHistory() };
  } finally {
    await harness.close();
    await owner.end();
  }
}
