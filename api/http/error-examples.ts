import type { ErrorEnvelope } from '../../domain/errors/errors';
import { ERROR_RENDERINGS, kindOfStatus } from '../../domain/errors/error-kinds';

/** The request id the examples echo (a client's own x-request-id, or one we generated). */
export const EXAMPLE_REQUEST_ID = '4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f';

/**
 * An example of the section 7 envelope for the OpenAPI document, with the code of the general
 * kind of its status (domain/errors/error-kinds.ts), so a documented 404 never shows a `conflict`.
 */
export function errorExample(status: number, message: string, fields?: Record<string, string>): ErrorEnvelope {
  const kind = kindOfStatus(status);
  if (!kind) throw new Error(`no error code is documented for status ${status}`);
  return { error: { code: ERROR_RENDERINGS[kind].code, message, details: fields ? { fields } : null, request_id: EXAMPLE_REQUEST_ID } };
}
