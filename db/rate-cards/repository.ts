import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../tenant-scope';
import { buildRateCardSnapshot, type RateCardLabourTier, type RateCardSku, type RateCardSnapshot } from '../../domain/pricing/rate-card';

interface RevisionRow {
  id: string;
  revision: Date;
  margin_floor: string;
  fabric_waste_factor: string;
  labour_base_hours_per_unit: string;
  labour_hours_per_square_foot: string;
  labour_motorisation_hours: string;
  tube_deduction_inches: string;
  hembar_deduction_inches: string;
  fabric_width_deduction_inches: string;
  fabric_drop_allowance_inches: string;
}

export interface CurrentRateCard {
  revisionId: string;
  snapshot: RateCardSnapshot;
}

const CACHE_LIMIT = 500;

/**
 * Reads a tenant's current rate card. A revision never changes once written (D2), so its
 * snapshot is cached by revision id: a calculate costs one small query for the current revision
 * id, and the SKUs and tiers are read once per revision per process, never once per line.
 */
export class RateCardRepository {
  private readonly cache = new Map<string, RateCardSnapshot>();
  /** How many times a revision's rows were read (tests check the cache does its job). */
  loads = 0;

  /** Within a tenant transaction (row-level security picks the tenant). */
  async current(em: EntityManager): Promise<CurrentRateCard | undefined> {
    // D21: the revision current at this transaction's instant, by effective_from (a future one is not used before it).
    const [latest] = await em.execute<{ id: string | null }[]>(`select rate_card_revision_at(now()) as id`);
    if (!latest?.id) return undefined;
    return { revisionId: latest.id, snapshot: await this.byId(em, latest.id) };
  }

  /**
   * The tenant's current rate card, outside any transaction. Which revision is current is
   * one statement (app_current_rate_card_revision selects the tenant for itself, under row-level
   * security) instead of a transaction's four round trips; a revision this process has not cached
   * yet is read in a tenant transaction, once.
   */
  async currentOf(em: EntityManager, organizationId: string): Promise<CurrentRateCard | undefined> {
    const [row] = await em.getConnection().execute<{ id: string | null }[]>(`select app_current_rate_card_revision(?) as id`, [organizationId]);
    const revisionId = row?.id;
    if (!revisionId) return undefined;
    const snapshot = this.cache.get(revisionId) ?? (await inTenant(em, organizationId, (tx) => this.byId(tx, revisionId)));
    return { revisionId, snapshot };
  }

  async byId(em: EntityManager, revisionId: string): Promise<RateCardSnapshot> {
    const cached = this.cache.get(revisionId);
    if (cached) return cached;
    this.loads++;
    const [revision] = await em.execute<RevisionRow[]>(`select * from rate_card_revisions where id = ?`, [revisionId]);
    if (!revision) throw new Error(`rate card revision ${revisionId} not found`);
    const skus = await em.execute<{ code: string; component: RateCardSku['component']; description: string; unit: RateCardSku['unit']; unit_cost_cents: string }[]>(
      `select code, component, description, unit, unit_cost_cents from rate_card_skus where revision_id = ? and active`,
      [revisionId],
    );
    const tiers = await em.execute<{ code: string; name: string; hourly_rate_cents: number; multiplier: string }[]>(
      `select code, name, hourly_rate_cents, multiplier from rate_card_labour_tiers where revision_id = ?`,
      [revisionId],
    );
    const snapshot = buildRateCardSnapshot({
      revision: new Date(revision.revision).toISOString(),
      settings: {
        marginFloor: revision.margin_floor,
        fabricWasteFactor: revision.fabric_waste_factor,
        labourBaseHoursPerUnit: revision.labour_base_hours_per_unit,
        labourHoursPerSquareFoot: revision.labour_hours_per_square_foot,
        labourMotorisationHours: revision.labour_motorisation_hours,
        tubeDeductionInches: revision.tube_deduction_inches,
        hembarDeductionInches: revision.hembar_deduction_inches,
        fabricWidthDeductionInches: revision.fabric_width_deduction_inches,
        fabricDropAllowanceInches: revision.fabric_drop_allowance_inches,
      },
      skus: skus.map((s): RateCardSku => ({ code: s.code, component: s.component, description: s.description, unit: s.unit, unitCostCents: s.unit_cost_cents })),
      labourTiers: tiers.map((t): RateCardLabourTier => ({ code: t.code, name: t.name, hourlyRateCents: Number(t.hourly_rate_cents), multiplier: t.multiplier })),
    });
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(revisionId, snapshot);
    return snapshot;
  }
}
