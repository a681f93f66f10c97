/**
 * Refusals of the pricing engine, as domain errors. Each carries its kind (spec 4.3 rules 3 and 6:
 * a bad request, or a forbidden override), so /api/ and GraphQL answer a PricingError as they
 * answer any domain error of that kind, and the field of the request it refuses. Messages name the
 * offending code or value because the spec's 400 envelope carries `details: null`: the message is
 * all the client gets there.
 */
import { DomainError, validationFailed } from '../errors/errors';
import type { SkuComponent } from './rate-card';

export type PricingErrorKind = 'bad_request' | 'forbidden';

export abstract class PricingError extends DomainError {
  declare readonly kind: PricingErrorKind;
  /** Path of the refused field in the calculate body, e.g. `lineItems.1.fabricSkuCode`. */
  abstract readonly field: string;

  constructor(kind: PricingErrorKind, message: string) {
    super(kind, message);
    this.name = new.target.name;
  }
}

/**
 * Runs `price`; a refusal becomes a validation failure (422) of the field at the caller's own
 * path, for the interfaces whose bodies are not the calculate body and that name the refused
 * field (D14's `/v1/quotes`, D12's change orders). `pathOf` turns the engine's path into theirs.
 */
export function refusedAtOwnPath<T>(price: () => T, pathOf: (enginePath: string) => string): T {
  try {
    return price();
  } catch (error) {
    if (error instanceof PricingError) throw validationFailed({ [pathOf(error.field)]: error.message });
    throw error;
  }
}

/** A SKU code not in the tenant's active catalogue (spec 4.3 rule 6). 400. */
export class UnknownSkuError extends PricingError {
  readonly skuCode: string;
  /** Request path of the offending field, e.g. `lineItems.1.fabricSkuCode`. */
  readonly field: string;

  constructor(skuCode: string, field: string) {
    super('bad_request', `Unknown SKU code "${skuCode}" at ${field}: it is not an active SKU of this rate card`);
    this.skuCode = skuCode;
    this.field = field;
  }
}

/** A known SKU sent in the slot of another component, e.g. a fabric code in hardwareSkuCode. 400. */
export class SkuComponentMismatchError extends PricingError {
  readonly skuCode: string;
  readonly field: string;
  readonly expected: SkuComponent;
  readonly actual: SkuComponent;

  constructor(skuCode: string, field: string, expected: SkuComponent, actual: SkuComponent) {
    super('bad_request', `SKU code "${skuCode}" at ${field} is a ${actual} SKU, but ${field} needs a ${expected} SKU`);
    this.skuCode = skuCode;
    this.field = field;
    this.expected = expected;
    this.actual = actual;
  }
}

/** A labour tier code not on the rate card (spec 4.3 rule 6). 400. */
export class UnknownLabourTierError extends PricingError {
  readonly tierCode: string;
  readonly field = 'laborTierCode';

  constructor(tierCode: string) {
    super('bad_request', `Unknown labour tier code "${tierCode}" at laborTierCode`);
    this.tierCode = tierCode;
  }
}

/** targetMargin below the floor and no marginOverride (spec 4.3 rule 3, D2). 400. */
export class MarginBelowFloorError extends PricingError {
  readonly field = 'targetMargin';
  readonly targetMargin: string;
  readonly marginFloor: string;

  constructor(targetMargin: string, marginFloor: string) {
    super(
      'bad_request',
      `targetMargin ${targetMargin} is below the margin floor ${marginFloor}; ` +
        'pricing below the floor needs marginOverride.reason and an ADMIN caller',
    );
    this.targetMargin = targetMargin;
    this.marginFloor = marginFloor;
  }
}

/** targetMargin below the floor with a marginOverride from a caller not allowed to override (spec 4.3 rule 3). 403. */
export class MarginOverrideNotAuthorisedError extends PricingError {
  readonly field = 'marginOverride';
  readonly targetMargin: string;
  readonly marginFloor: string;

  constructor(targetMargin: string, marginFloor: string) {
    super('forbidden', `Only an ADMIN may override the margin floor ${marginFloor} with targetMargin ${targetMargin}`);
    this.targetMargin = targetMargin;
    this.marginFloor = marginFloor;
  }
}

/**
 * Input that passes the request schema but cannot be priced: a shade narrower than the rate card's
 * cut deductions, a targetMargin outside [0, 1) reaching the engine, or amounts beyond exact integer
 * range. 400 like the other refusals of the pricing engine (section 7).
 */
export class UnpriceableInputError extends PricingError {
  readonly field: string;

  constructor(field: string, message: string) {
    super('bad_request', `${field}: ${message}`);
    this.field = field;
  }
}
