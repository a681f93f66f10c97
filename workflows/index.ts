// Every workflow the worker registers. Deterministic code only: no Node built-ins, no I/O
// (test/unit/workflow-boundaries.test.ts enforces this).
export { roundTrip } from './round-trip';
export { quoteApproval, quoteInvoice } from './quote-approval';
export { expireQuotes } from './expire-quotes';
export { integrationTokenRefresh } from './integration-token-refresh';
export { deliverWebhook } from './webhook-delivery';
