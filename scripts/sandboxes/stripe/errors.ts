// Stripe's v1 error envelope: {error: {type, code?, message, param?, doc_url?, request_log_url?}}.
// `replayable` mirrors Stripe's rule that only requests whose endpoint began executing have their
// result saved under an idempotency key; parameter validation failures are not saved.

export type StripeErrorType =
  | 'api_error'
  | 'card_error'
  | 'idempotency_error'
  | 'invalid_request_error'
  | 'permission_error';

export class StripeApiError extends Error {
  readonly status: number;
  readonly type: StripeErrorType;
  readonly code: string | undefined;
  readonly param: string | undefined;
  readonly replayable: boolean;

  constructor(
    status: number,
    type: StripeErrorType,
    message: string,
    opts: { code?: string; param?: string; replayable?: boolean } = {},
  ) {
    super(message);
    this.status = status;
    this.type = type;
    this.code = opts.code;
    this.param = opts.param;
    this.replayable = opts.replayable ?? true;
  }

  body(requestId: string, nowSeconds: number): { error: Record<string, string> } {
    const error: Record<string, string> = { message: this.message, type: this.type };
    if (this.code) {
      error['code'] = this.code;
      error['doc_url'] = `https://stripe.com/docs/error-codes/${this.code.replace(/_/g, '-')}`;
    }
    if (this.param) error['param'] = this.param;
    error['request_log_url'] = `https://dashboard.stripe.com/test/logs/${requestId}?t=${nowSeconds}`;
    return { error };
  }
}

/** Parameter-shape errors: raised before the endpoint runs, so never saved for idempotent replay. */
export function paramError(message: string, param: string, code?: string): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', message, { param, ...(code ? { code } : {}), replayable: false });
}

export function missingParam(param: string): StripeApiError {
  return paramError(`Missing required param: ${param}.`, param, 'parameter_missing');
}

export function noSuch(kind: string, id: string, param: string, status = 400): StripeApiError {
  return new StripeApiError(status, 'invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param });
}

export function invalidRequest(message: string, opts: { code?: string; param?: string } = {}): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', message, opts);
}
