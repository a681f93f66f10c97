import type { EntityManager } from '@mikro-orm/postgresql';
import { route, type RouteHost } from '../http/route';
import { OFFICE } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { PaymentsService } from './payments-service';
import { receivePaymentsEvent, SIGNATURE_HEADERS } from './webhook';
import { CheckoutBody, CheckoutSession, InvoiceView, WebhookReceipt } from './schemas';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

export function paymentsRoutes(host: RouteHost, deps: { payments: PaymentsService; em: EntityManager; webhookSecret: string | undefined }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/quotes/:id/invoice',
    summary: 'The invoice written at approval, as the payments provider has it',
    tags: ['payments'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'The invoice', schema: InvoiceView },
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
    summary: 'Ensure exactly one invoice exists for an approved quote (runs the payments leg alone)',
    tags: ['payments'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'Already invoiced: the invoice, unchanged (created: false)', schema: InvoiceView },
      201: { description: 'Invoice written and finalised (created: true)', schema: InvoiceView },
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
    summary: 'A hosted payment page for an approved quote (reused while open)',
    tags: ['payments'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    body: CheckoutBody,
    responses: {
      200: { description: 'The open session, reused', schema: CheckoutSession },
      201: { description: 'A new session', schema: CheckoutSession },
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
    summary: "The payments provider's events, authenticated by the payments-signature header",
    tags: ['payments'],
    auth: 'signed',
    responses: {
      200: { description: 'Received; handled says whether it was acted on', schema: WebhookReceipt },
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
