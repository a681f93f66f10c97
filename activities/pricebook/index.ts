import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { announceRevision } from '../../db/pricebook/announcements';

/** D21: announcing a future-dated revision once its instant has come (workflows/pricebook-publication.ts). */
export function createPricebookActivities(deps: { em: EntityManager }) {
  return {
    /**
     * Records `pricebook.published` for the revision in the outbox (the relay delivers it), once:
     * a retried activity finds the event already recorded. A revision that never committed (the
     * publication rolled back after the timer was started) announces nothing.
     */
    async announcePricebookRevision(input: { organizationId: string; revisionId: string }): Promise<{ announced: boolean }> {
      const outcome = await inTenant(deps.em, input.organizationId, (tx) => announceRevision(tx, input.organizationId, input.revisionId));
      if (outcome === 'not_yet') throw new Error(`revision ${input.revisionId} is not current yet; retried`);
      return { announced: outcome === 'announced' };
    },
  };
}
