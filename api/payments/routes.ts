import type { EntityManager } from '@mikro-orm/postgresql';
import { route, type RouteHost } from '../http/route';
import { OFFICE } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { PaymentsService } from './payments-service';
import { receivePaymentsEvent, SIGNATURE_HEADERS } from './webhook';
import { CheckoutBody, CheckoutSession, InvoiceView, PaymentsEvent, PaymentsSignatureHeaders, WebhookReceipt } from './schemas';
import { CHECKOUT_REQUEST_EXAMPLE, CHECKOUT_SESSION_EXAMPLE, INVOICE_VIEW_EXAMPLE, PAYMENTS_EVENT_EXAMPLE } from './examples';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

export function paymentsRoutes(host: RouteHost, deps: { payments: PaymentsService; em: EntityManager; webhookSecret: string | undefined }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/quotes/:id/invoice',
    operationId: 'getQuoteInvoice',
    summary: 'The invoice written at approval, as the payments provider has it',
    description: 'Read-only; asks the payments provider for the invoice the approval (or POST .../invoice) recorded. `mode` comes from the invoice itself.',
    tags: ['payments'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'The invoice', schema: InvoiceView, example: INVOICE_VIEW_EXAMPLE },
      404: error('No such quote in the tenant, or no invoice recorded'),
      503: error('The payments secret key is not set'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.payments.readInvoice(caller, params.id));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/:id/invoice',
    operationId: 'ensureQuoteInvoice',
    summary: 'Ensure exactly one invoice exists for an approved quote (runs the payments leg alone)',
    description:
      'Idempotent. A recorded invoice is answered unchanged (200); otherwise the payments leg runs again with the same idempotency keys ' +
      'and the amounts frozen at approval (201). It does not re-emit quote.approved nor repeat the accounting or CRM legs.',
    tags: ['payments'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'Already invoiced: the invoice, unchanged (created: false)', schema: InvoiceView, example: INVOICE_VIEW_EXAMPLE },
      201: { description: 'Invoice written and finalised (created: true)', schema: InvoiceView, example: { ...INVOICE_VIEW_EXAMPLE, created: true } },
      400: error('The quote is not approved'),
      404: error('No such quote in the tenant'),
      502: error('The provider refused; the attempt is recorded and the call can be repeated'),
      503: error('The payments secret key is not set'),
    },
    handler: async ({ res, caller, params }) => {
      const { view, created } = await deps.payments.ensureInvoice(caller, params.id);
      res.status(created ? 201 : 200).json(view);
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/:id/checkout-session',
    operationId: 'createCheckoutSession',
    summary: 'A hosted payment page for an approved quote (reused while open)',
    description:
      'Send `{}` for the default return origin. The page charges the frozen lines plus one line per tax of the quote’s region (13 % HST for a quote made through `/api/`). ' +
      'While a session is open the same one is answered (200, `reused: true`); a paid quote is a 409.',
    tags: ['payments'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    body: CheckoutBody,
    bodyExample: CHECKOUT_REQUEST_EXAMPLE,
    responses: {
      200: { description: 'The open session, reused', schema: CheckoutSession, example: { ...CHECKOUT_SESSION_EXAMPLE, reused: true } },
      201: { description: 'A new session', schema: CheckoutSession, example: CHECKOUT_SESSION_EXAMPLE },
      400: error('Not approved, or return_url not on the allowlist'),
      404: error('No such quote in the tenant'),
      409: error('Already paid'),
      503: error('The payments secret key is not set'),
    },
    handler: async ({ res, caller, params, body }) => {
      const session = await deps.payments.checkout(caller, params.id, body.return_url);
      res.status(session.reused ? 200 : 201).json(session);
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/integrations/payments/webhook',
    operationId: 'receivePaymentsEvent',
    summary: "The payments provider's events, authenticated by the payments-signature header",
    description:
      'For the payments provider, not for API clients. No token: the HMAC in `payments-signature` over the exact bytes received ' +
      'authenticates it (300-second tolerance). `invoice.paid` sets `paid_at` on the originating quote once; a repeated event id is acknowledged and ignored.',
    tags: ['payments'],
    auth: 'signed',
    headers: PaymentsSignatureHeaders,
    rawBody: { description: "The provider's event object, verified over its exact bytes", schema: PaymentsEvent, example: PAYMENTS_EVENT_EXAMPLE },
    responses: {
      200: { description: 'Received; handled says whether it was acted on', schema: WebhookReceipt, example: { received: true, handled: true } },
      400: error('Signature verification failed or the body is not JSON'),
      503: error('The payments webhook secret is not set'),
    },
    handler: async ({ req, res }) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signature = SIGNATURE_HEADERS.map((name) => req.get(name)).find(Boolean);
      res.json(await receivePaymentsEvent({ em: deps.em, secret: deps.webhookSecret, log: req.log }, raw, signature));
    },
  });
}
