/**
 * D3: what a quote keeps of its calculation at approval (the `quotes.frozen_calculation` JSON),
 * as far as the invoicing legs read it. The pricing engine's result (domain/pricing/reference-engine.ts)
 * is checked against this shape at compile time, so the two cannot drift apart.
 */
export interface FrozenCalculation {
  line_items: readonly {
    reference: string | null;
    quantity: number;
    width_inches: number;
    drop_inches: number;
    /** The line's integer price in cents, as quoted. */
    price_cents: number;
  }[];
}
