import Decimal from 'decimal.js';
import type { ChangeOrderRow } from '../../db/fsm/field-writes';
import type { ChangeOrder } from './schemas';

// D12: money in the field interface is a JSON number of dollars, from integer cents (domain/money.ts).
import { dollars } from '../../domain/money';

export function toChangeOrder(row: ChangeOrderRow, quoteNumber: number | null): ChangeOrder {
  const previous = BigInt(row.previous_value_cents ?? '0');
  const sell = BigInt(row.sell_cents);
  return {
    change_order_id: row.id,
    job_id: row.work_order_id,
    quote_ref: quoteNumber === null ? null : `Q-${quoteNumber}`,
    sequence: row.sequence,
    status: row.status,
    reason: row.reason,
    delta: {
      labour_hours: new Decimal(row.labour_hours).toDecimalPlaces(4).toNumber(),
      material_cost: dollars(row.material_cost_cents),
      direct_cost: dollars(row.direct_cost_cents),
      sell: dollars(row.sell_cents),
      currency: 'CAD',
    },
    revised_contract_value: { previous: dollars(previous), current: dollars(previous + sell), currency: 'CAD' },
    margin: { applied: new Decimal(row.applied_margin).toNumber(), floor_engaged: row.floor_engaged },
    approved_by: row.approved_by,
    rejected_by: row.rejected_by_name ? { name: row.rejected_by_name, role: row.rejected_by_role! } : null,
    rejection_reason: row.rejection_reason,
    created_at: new Date(row.created_at).toISOString(),
    decided_at: row.decided_at ? new Date(row.decided_at).toISOString() : null,
  };
}
