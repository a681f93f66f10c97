/**
 * The body of `POST /api/v1/quotes/calculate` (spec 4.3) after validation. Plain types on purpose:
 * the zod schema lives with the HTTP layer and is kept structurally compatible with these, so the
 * engine never depends on the validator. The limits in the comments are enforced there, not here.
 */
export interface CalculationLineItem {
  /** max 120 chars */
  reference?: string | undefined;
  /** > 0; a JSON number, read by the engine through its shortest decimal representation */
  widthInches: number;
  /** > 0 */
  dropInches: number;
  /** integer 1-500 */
  quantity: number;
  fabricSkuCode: string;
  hardwareSkuCode: string;
  motorSkuCode?: string | undefined;
  trimSkuCode?: string | undefined;
}

export interface CalculationRequest {
  /** 1-32 chars */
  laborTierCode: string;
  /** 1-200 items */
  lineItems: readonly CalculationLineItem[];
  /** a fraction in [0, 1), never a percentage; omitted means the tenant's margin floor */
  targetMargin?: number | undefined;
  /** reason 10-500 chars; needed (with an ADMIN caller) only when targetMargin is below the floor */
  marginOverride?: { reason: string } | undefined;
  customer?: { name: string; email?: string | undefined } | undefined;
  /** default false; the engine ignores it (persistence is the caller's job) */
  persist?: boolean | undefined;
}
