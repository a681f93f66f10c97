// Every workflow the worker registers. Deterministic code only: no Node built-ins, no I/O
// (the layer rules of scripts/lint/dependency-rules.cjs enforce this in npm test), each
// implementing its function type in infra/temporal/contracts.ts.
export { roundTrip } from './round-trip';
export { quoteApproval, quoteInvoice } from './quote-approval';
export { expireQuotes } from './expire-quotes';
export { integrationTokenRefresh } from './integration-token-refresh';
export { deliverEndpointWebhooks } from './webhook-endpoint-delivery';
export { changeOrderInvoice } from './change-order-invoice';
export { jobCompletionInvoice } from './job-completion-invoice';
export { providerSync } from './provider-sync';
export { pricebookPublication } from './pricebook-publication';
export { tenantProvisioning } from './tenant-provisioning';
export { routePlan } from './route-plan';
