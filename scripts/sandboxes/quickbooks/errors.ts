// QuickBooks Online error bodies. The accounting service answers validation problems with
// `{Fault: {Error: [{Message, Detail, code, element}], type}, time}`; the API gateway in front of
// it answers authentication/authorization failures with the lower-case IntuitResponse envelope
// (`fault.error[0].message = "message=AuthenticationFailed; errorCode=003200; statusCode=401"`).
import { json } from '../core/http-fake';
import type { FakeResponse } from '../core/http-fake';

export class QboFault extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly faultType: string;
  readonly element: string;

  constructor(status: number, code: string, message: string, detail: string, faultType = 'ValidationFault', element = '') {
    super(message);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.faultType = faultType;
    this.element = element;
  }

  body(time: string): unknown {
    return {
      Fault: { Error: [{ Message: this.message, Detail: this.detail, code: this.code, element: this.element }], type: this.faultType },
      time,
    };
  }
}

export const qboFaults = {
  objectNotFound(entity: string, id: string): QboFault {
    return new QboFault(
      400,
      '610',
      'Object Not Found',
      `Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees. (${entity} Id=${id})`,
    );
  },
  invalidReference(entity: string, id: string): QboFault {
    return new QboFault(400, '2500', 'Invalid Reference Id', `Invalid Reference Id : ${entity} assigned to this transaction has been deleted or does not exist (Id=${id}).`);
  },
  requiredParam(name: string): QboFault {
    return new QboFault(400, '2020', 'Required param missing, need to supply the required value for the API', `Required parameter ${name} is missing in the request`);
  },
  unsupportedProperty(entityClass: string, prop: string): QboFault {
    return new QboFault(
      400,
      '2010',
      'Request has invalid or unsupported property',
      `Property Name:Unrecognized field "${prop}" (class com.intuit.schema.finance.v3.${entityClass}), not marked as ignorable specified is unsupported or invalid`,
    );
  },
  malformedJson(why: string): QboFault {
    return new QboFault(400, '2010', 'Request has invalid or unsupported property', `Property Name:${why} specified is unsupported or invalid`);
  },
  duplicateName(existingId: string): QboFault {
    return new QboFault(400, '6240', 'Duplicate Name Exists Error', `The name supplied already exists. : Id=${existingId}`);
  },
  staleObject(): QboFault {
    return new QboFault(
      400,
      '5010',
      'Stale Object Error',
      'Stale Object Error : You and another user were working on this at the same time. The other user finished before you did, so your work was not saved.',
    );
  },
  amountMismatch(supplied: string): QboFault {
    return new QboFault(400, '6070', 'Amount calculation incorrect in the request', `Amount is not equal to UnitPrice * Qty. Supplied value:${supplied}`);
  },
  invalidValue(field: string, value: string): QboFault {
    return new QboFault(400, '2050', 'Invalid String Length', `String length is either shorter or longer than supported by specification. ${field}:${value}`);
  },
  queryParse(detail: string): QboFault {
    return new QboFault(400, '4000', 'Error parsing query', `QueryParserError: ${detail}`);
  },
  queryValidation(detail: string): QboFault {
    return new QboFault(400, '4001', 'Invalid query', `QueryValidationError: ${detail}`);
  },
  unsupportedOperation(detail: string): QboFault {
    return new QboFault(400, '500', 'Unsupported Operation', `Operation ${detail} is not supported.`);
  },
  businessValidation(detail: string): QboFault {
    return new QboFault(400, '6000', 'A business validation error has occurred while processing your request', `Business Validation Error: ${detail}`);
  },
};

/** Gateway-level 401/403 in the lower-case envelope the API gateway uses. */
export function gatewayFault(status: 401 | 403, detail: string, epochMs: number, tid: string): FakeResponse {
  const [name, code, type] = status === 401 ? ['AuthenticationFailed', '003200', 'AUTHENTICATION'] : ['ApplicationAuthorizationFailed', '003100', 'AUTHORIZATION'];
  return json(
    status,
    {
      warnings: null,
      intuitObject: null,
      fault: { error: [{ message: `message=${name}; errorCode=${code}; statusCode=${status}`, detail, code: String(Number(code)), element: null }], type },
      report: null,
      queryResponse: null,
      batchItemResponse: [],
      attachableResponse: [],
      syncErrorResponse: null,
      requestId: null,
      time: epochMs,
      status: null,
      cdcresponse: [],
    },
    { intuit_tid: tid, 'www-authenticate': status === 401 ? 'Bearer realm="Intuit", error="invalid_token"' : 'Bearer realm="Intuit"' },
  );
}
