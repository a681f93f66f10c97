import type { ErrorCode, ErrorEnvelope } from '../../domain/errors/errors';

/**
 * Examples of the section 7 envelope for the OpenAPI document: the code each status carries in
 * this service (D5 for 502 and 503), so a documented 404 never shows a `conflict`.
 */
export const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'bad_request',
  415: 'bad_request',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'provider_error',
  503: 'provider_error',
};

/** The request id the examples echo (a client's own x-request-id, or one we generated). */
export const EXAMPLE_REQUEST_ID = '4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f';

export function errorExample(status: number, message: string, fields?: Record<string, string>): ErrorEnvelope {
  const code = CODE_OF_STATUS[status];
  if (!code) throw new Error(`no error code is documented for status ${status}`);
  return { error: { code, message, details: fields ? { fields } : null, request_id: EXAMPLE_REQUEST_ID } };
}
