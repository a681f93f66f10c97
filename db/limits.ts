/**
 * Webhook endpoints a workspace may register (D6 leaves it open). Sixteen, as the
 * payments provider allows per account: enough for every system a contractor runs, and a bound
 * on the deliveries one event can fan out to. Enforced by the database (the trigger of
 * Migration20261122010000WebhookEndpointLimit); changing it takes a migration that redefines it.
 */
export const WEBHOOK_ENDPOINTS_PER_TENANT = 16;
export const WEBHOOK_ENDPOINT_LIMIT_CONSTRAINT = 'webhook_endpoints_per_tenant';
