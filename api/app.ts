import express, { type Express } from 'express';
import type { Pool } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import './http/request-context';
import type { Settings } from '../infra/runtime/settings';
import { requestContext } from './http/request-id';
import { requestScope } from './http/request-scope';
import type { RequestMetrics } from './http/metrics';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { securityHeaders } from './http/security-headers';
import { crossOrigin } from './http/cors';
import { readCsvBody, readImageBody, readJsonBody, readRawBody } from './http/body-reader';
import { refuseUndecodablePaths } from './http/path-decoder';
import { BROAD_LIMIT, INVITATION_LIMIT, INVITATION_RESEND_LIMIT, LINK_REDEMPTION_LIMIT, LOGIN_LIMIT, Limiter, PASSWORD_CHECK_LIMIT, PASSWORD_RESET_LIMIT, broadRateLimit, limitUntilAuthenticated } from './http/rate-limit';
import { authenticate } from './http/authenticate';
import { meterUnrouted, PlanMeter } from './http/plan-meter';
import { IdempotencyKeys } from './http/idempotency';
import { announceVersion, registrationVersion, resolveVersion } from './versions/middleware';
import { versionRoutes } from './versions/routes';
import { inTenant } from '../db/tenant-scope';
import { v1QuoteRoutes } from './v1/quotes/routes';
import { pricebookRoutes } from './v1/pricebooks/routes';
import { PricebookService } from './v1/pricebooks/pricebook-service';
import type { PricebookWorkflows } from '../infra/temporal/pricebook-workflows';
import { V1QuoteService } from './v1/quotes/v1-quote-service';
import { PublicRoutes } from './http/public-routes';
import { createRegistry } from './meta/openapi';
import { registerEventWebhooks } from './events/openapi';
import type { RouteHost } from './http/route';
import { metaRoutes } from './meta/routes';
import { healthRoutes } from './health/routes';
import { connectorRoutes } from './connectors/routes';
import { authRoutes } from './auth/routes';
import { TokenService } from './auth/tokens';
import { LoginService, type PasswordHasher } from './auth/login-service';
import { hashPassword, verifyPassword } from '../db/passwords';
import { quoteRoutes } from './quotes/routes';
import { QuoteService } from './quotes/quote-service';
import { quotePageRoutes } from './quote-page/routes';
import { QuotePageService } from './quote-page/page-service';
import type { Mailer } from '../infra/email/mailer';
import { RateCardRepository } from '../db/rate-cards/repository';
import { workOrderRoutes } from './work-orders/routes';
import type { EventDispatcher } from '../infra/events/dispatcher';
import type Stripe from 'stripe';
import type { InvoiceRunner } from '../infra/temporal/invoice-runner';
import { PaymentsService } from './payments/payments-service';
import { paymentsRoutes } from './payments/routes';
import { WorkOrderService } from './work-orders/work-order-service';
import type { IntegrationWorkflows } from '../infra/temporal/integration-workflows';
import { integrationRoutes } from './integrations/routes';
import { IntegrationService } from './integrations/integration-service';
import { IntegrationConnections } from '../infra/integrations/connection-store';
import { createOAuthProviders } from '../infra/integrations/providers';
import { CredentialCipher } from '../db/security/credential-cipher';
import { webhookRoutes } from './webhooks/routes';
import { WebhookEndpointService } from './webhooks/endpoint-service';
import type { Resolver } from '../infra/webhooks/address-policy';
import { organizationRoutes } from './organization/routes';
import { developerRoutes } from './developer/routes';
import { OrganizationService } from './organization/organization-service';
import { auditRoutes } from './audit/routes';
import { AuditService } from './audit/audit-service';
import { fsmRoutes } from './fsm/routes';
import { routingDataRoutes } from './fsm/routing-data-routes';
import { RoutingDataService } from './fsm/routing-data-service';
import { dailyRoutes } from './fsm/daily-routes';
import { DailyRouteService } from './fsm/daily-route-service';
import type { RoutePlans } from '../infra/temporal/route-plans';
import { JobService } from './fsm/job-service';
import { CrewService } from './fsm/crew-service';
import { ChangeOrderService } from './fsm/change-order-service';
import { graphqlRoutes } from './graphql/routes';
import { teamRoutes } from './team/routes';
import { TeamService } from './team/team-service';
import { smtpMailer } from '../infra/email/mailer';
import type { PointsBucket } from './graphql/throttle';
import { PlanBucket } from './graphql/plan-bucket';

export interface AppDependencies {
  settings: Settings;
  /** Entity manager of the application role's pool (row-level security applies). */
  em: EntityManager;
  /** pg pool of the application role, for the shared rate-limit counters. */
  limiterPool: Pool;
  logger: Logger;
  hasher?: PasswordHasher;
  /** Routes to add after ours and before the router 404 (tests use it to add failing routes). */
  extraRoutes?: (host: RouteHost) => void;
  rateCards?: RateCardRepository;
  /** Starts the workflows of committed events; without it the worker's outbox relay does. */
  events?: EventDispatcher;
  /** The payments provider's client, when PAYMENTS_SECRET_KEY is set. */
  payments?: Stripe;
  /** Runs the payments leg alone for POST /quotes/{id}/invoice. */
  invoices?: InvoiceRunner;
  /** D23: runs route plans on the routing task queue. */
  routePlans?: RoutePlans;
  /** Starts and wakes the token refresh workflow of each connection. */
  integrationWorkflows?: IntegrationWorkflows;
  /** DNS for webhook URL checks at registration (tests inject answers). */
  resolver?: Resolver;
  /** Where GraphQL draws its points (D17 with D15): the tenant's plan bucket unless a test gives another. */
  graphqlBucket?: PointsBucket;
  /** D21: starts the timer that announces a future-dated price book revision. */
  pricebookWorkflows?: PricebookWorkflows;
  /** Prometheus counters of requests, served at METRICS_PORT by api/main.ts. */
  metrics?: RequestMetrics;
  /**
   * SMTP (SMTP_URL): D24's quote links and the office's notices, D20's invitations and resets;
   * absent, they are not emailed (a warning is logged). The team's mail falls back to SMTP_URL.
   */
  mailer?: Mailer;
}

export const defaultHasher: PasswordHasher = { hash: hashPassword, verify: verifyPassword };

/**
 * The whole HTTP surface. Order matters: request id and logging, the broad rate limit, body
 * parsing, then the bearer guard for everything under /api/v1 (before routing, section 5.7),
 * then the routes, then the router 404 and the one error handler.
 */
export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.settings.TRUST_PROXY_HOPS);
  app.set('json spaces', 0);
  // Where clients reach us: the absolute URLs of Link headers (api/http/pagination.ts).
  app.locals.publicBaseUrl = deps.settings.PUBLIC_BASE_URL;

  const tokens = new TokenService(deps.settings.AUTH_TOKEN_SECRET);
  const login = new LoginService(deps.em, tokens, deps.hasher ?? defaultHasher);
  // D15 and D14: what routes declaring `metering` and `idempotency` draw from and keep keys in (api/http/route.ts).
  const meter = new PlanMeter(deps.em);
  const host: RouteHost = { app, registry: createRegistry(), publicRoutes: new PublicRoutes(), meter, idempotencyKeys: new IdempotencyKeys(deps.em) };
  registerEventWebhooks(host.registry);
  // Provider tokens and webhook secrets are sealed with the same key (D8).
  const cipher = CredentialCipher.fromSettings(deps.settings);

  app.use(requestContext(deps.logger));
  app.use(requestScope());
  if (deps.metrics) app.use(deps.metrics.middleware);
  app.use(securityHeaders());
  app.use(crossOrigin(deps.settings.CORS_ORIGINS));
  const broadLimiter = new Limiter(deps.limiterPool, BROAD_LIMIT);
  app.use(broadRateLimit(broadLimiter));
  // The payments webhook is verified over the exact bytes received, so it gets them unparsed.
  app.use('/api/v1/integrations/payments/webhook', readRawBody());
  app.use('/v1/pricebooks', readCsvBody());
  app.use('/api/v1/organization/logo', readImageBody());
  app.use(readJsonBody());
  // D16: every answer under /api/v1 and /v1 says its version, and is shaped for it.
  app.use(['/api/v1', '/v1'], announceVersion);
  // Consulted per request: by then every route has declared whether it is public.
  app.use('/api/v1', authenticate({ em: deps.em, tokens, publicRoutes: host.publicRoutes }));
  // D10: any unauthenticated request under /v1/, to a real or an invented path, is 401, and
  // counts against its address (section 8's broad limit) as it would under /api/.
  app.use('/v1', limitUntilAuthenticated(broadLimiter, authenticate({ em: deps.em, tokens, publicRoutes: host.publicRoutes })));
  app.use(['/api/v1', '/v1'], resolveVersion(deps.em));
  app.use(refuseUndecodablePaths());

  healthRoutes(host, deps);
  versionRoutes(host);
  metaRoutes(host, { serverUrl: deps.settings.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? '/' });
  connectorRoutes(host, deps);
  authRoutes(host, { em: deps.em, login, loginLimiter: new Limiter(deps.limiterPool, LOGIN_LIMIT) });
  const rateCards = deps.rateCards ?? new RateCardRepository();
  // D24: links to the customer's page are built on PUBLIC_BASE_URL (by default this API's own address).
  const publicBaseUrl = deps.settings.PUBLIC_BASE_URL ?? `http://localhost:${deps.settings.PORT}`;
  const mail = { mailer: deps.mailer, publicBaseUrl, logger: deps.logger };
  teamRoutes(host, {
    em: deps.em,
    team: new TeamService({
      em: deps.em,
      hasher: deps.hasher ?? defaultHasher,
      tokens,
      mailer: deps.mailer ?? (deps.settings.SMTP_URL ? smtpMailer(deps.settings.SMTP_URL, deps.settings.MAIL_FROM) : undefined),
      publicBaseUrl,
      logger: deps.logger,
    }),
    limiters: {
      invitations: new Limiter(deps.limiterPool, INVITATION_LIMIT),
      invitationResends: new Limiter(deps.limiterPool, INVITATION_RESEND_LIMIT),
      passwordResets: new Limiter(deps.limiterPool, PASSWORD_RESET_LIMIT),
      passwordChecks: new Limiter(deps.limiterPool, PASSWORD_CHECK_LIMIT),
      linkRedemptions: new Limiter(deps.limiterPool, LINK_REDEMPTION_LIMIT),
    },
  });
  const quotes = new QuoteService(deps.em, rateCards, deps.events, mail);
  quoteRoutes(host, { quotes });
  quotePageRoutes(host, {
    pages: new QuotePageService(deps.em, { formSecret: deps.settings.AUTH_TOKEN_SECRET, events: deps.events, ...mail }),
    limiterPool: deps.limiterPool,
    publicBaseUrl,
  });
  const v1Quotes = new V1QuoteService(deps.em, rateCards, deps.events);
  v1QuoteRoutes(host, { em: deps.em, rateCards, quotes: v1Quotes });
  pricebookRoutes(host, { pricebooks: new PricebookService(deps.em, { events: deps.events, workflows: deps.pricebookWorkflows }) });
  const travel = { osrmUrl: deps.settings.ROUTING_OSRM_URL, osrmTimeoutMs: deps.settings.ROUTING_OSRM_TIMEOUT_MS };
  workOrderRoutes(host, { workOrders: new WorkOrderService(deps.em, deps.events, travel) });
  paymentsRoutes(host, {
    em: deps.em,
    webhookSecret: deps.settings.PAYMENTS_WEBHOOK_SECRET,
    payments: new PaymentsService(deps.em, { stripe: deps.payments, invoices: deps.invoices, returnOrigins: deps.settings.CHECKOUT_RETURN_ORIGINS }),
  });
  integrationRoutes(host, {
    integrations: new IntegrationService({
      em: deps.em,
      settings: deps.settings,
      providers: createOAuthProviders(deps.settings),
      connections: new IntegrationConnections(deps.em, cipher),
      workflows: deps.integrationWorkflows,
    }),
  });
  webhookRoutes(host, {
    registrationVersion,
    endpoints: new WebhookEndpointService({
      em: deps.em,
      cipher,
      allowPrivateNetworks: deps.settings.OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS,
      allowLoopback: deps.settings.OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK,
      resolve: deps.resolver,
      deliveries: deps.events?.webhooks,
    }),
  });
  organizationRoutes(host, { organizations: new OrganizationService(deps.em) });
  auditRoutes(host, { audit: new AuditService(deps.em) });
  developerRoutes(host);
  const jobs = new JobService(deps.em, deps.events, travel);
  fsmRoutes(host, { jobs, crews: new CrewService(deps.em), changeOrders: new ChangeOrderService(deps.em, rateCards, deps.events) });
  routingDataRoutes(host, { routingData: new RoutingDataService(deps.em), jobs });
  dailyRoutes(host, { routes: new DailyRouteService(deps.em, { plans: deps.routePlans, travel, events: deps.events }) });
  graphqlRoutes(host, { em: deps.em, rateCards, v1Quotes, quotes, travel, events: deps.events, bucket: deps.graphqlBucket ?? new PlanBucket(deps.em), production: deps.settings.NODE_ENV === 'production' });
  deps.extraRoutes?.(host);

  app.use('/v1', meterUnrouted(meter));
  // Each answers in the shape of the request's path: the section 7 envelope, or D10's problems under /v1/.
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
