import { Migration20261121000000Foundation } from './Migration20261121000000Foundation';
import { Migration20261121010000Quotes } from './Migration20261121010000Quotes';
import { Migration20261121020000WorkOrders } from './Migration20261121020000WorkOrders';
import { Migration20261121030000Approval } from './Migration20261121030000Approval';
import { Migration20261121035000Checkout } from './Migration20261121035000Checkout';
import { Migration20261121036000Expiry } from './Migration20261121036000Expiry';
import { Migration20261121040000Integrations } from './Migration20261121040000Integrations';
import { Migration20261121050000Webhooks } from './Migration20261121050000Webhooks';
import { Migration20261122000000LeastPrivilege } from './Migration20261122000000LeastPrivilege';
import { Migration20261122010000WebhookEndpointLimit } from './Migration20261122010000WebhookEndpointLimit';
import { Migration20261123000000QuoteDetail } from './Migration20261123000000QuoteDetail';
import { Migration20261124070000DeveloperWebhooks } from './Migration20261124070000DeveloperWebhooks';
import { Migration20261124080000FieldSync } from './Migration20261124080000FieldSync';
import { Migration20261124090000V1Quotes } from './Migration20261124090000V1Quotes';
import { Migration20261124100000ProviderSync } from './Migration20261124100000ProviderSync';
import { Migration20261124110000OperationsMetrics } from './Migration20261124110000OperationsMetrics';
import { Migration20261124120000WebhookFormats } from './Migration20261124120000WebhookFormats';
import { Migration20261125190000WebhookEndpointDelivery } from './Migration20261125190000WebhookEndpointDelivery';
import { Migration20261126090000CurrentRateCard } from './Migration20261126090000CurrentRateCard';
import { Migration20261126100000DeletableForeignKeyIndexes } from './Migration20261126100000DeletableForeignKeyIndexes';
import { Migration20261126120000OperationsMetricsEveryTenant } from './Migration20261126120000OperationsMetricsEveryTenant';
import { Migration20261127000000AuditLog } from './Migration20261127000000AuditLog';
import { Migration20261127000100RunningReleases } from './Migration20261127000100RunningReleases';
import { Migration20261127000200WebhookTestDeliveries } from './Migration20261127000200WebhookTestDeliveries';
import { Migration20261127010000Team } from './Migration20261127010000Team';
import { Migration20261127010100FirstAdminInvitation } from './Migration20261127010100FirstAdminInvitation';
import { Migration20261127020000TenantSettings } from './Migration20261127020000TenantSettings';
import { Migration20261127020100FirstAdminDoor } from './Migration20261127020100FirstAdminDoor';
import { Migration20261127030000Pricebook } from './Migration20261127030000Pricebook';
import { Migration20261127040000RoutingData } from './Migration20261127040000RoutingData';
import { Migration20261127041000RoutingWorkerReadsNoUsers } from './Migration20261127041000RoutingWorkerReadsNoUsers';
import { Migration20261127050000CustomerQuotePage } from './Migration20261127050000CustomerQuotePage';
import { Migration20261127060000CompletionInvoices } from './Migration20261127060000CompletionInvoices';
import { Migration20261127070000TextSearch } from './Migration20261127070000TextSearch';
import { Migration20261128030000DispatchCoalescing } from './Migration20261128030000DispatchCoalescing';

/**
 * Every migration, in order. Listed explicitly (rather than discovered from the folder) so the
 * same list runs under tsx, Jest and a bundler alike. Add new migrations at the end.
 */
export const migrations = [
  { name: 'Migration20261121000000Foundation', class: Migration20261121000000Foundation },
  { name: 'Migration20261121010000Quotes', class: Migration20261121010000Quotes },
  { name: 'Migration20261121020000WorkOrders', class: Migration20261121020000WorkOrders },
  { name: 'Migration20261121030000Approval', class: Migration20261121030000Approval },
  { name: 'Migration20261121035000Checkout', class: Migration20261121035000Checkout },
  { name: 'Migration20261121036000Expiry', class: Migration20261121036000Expiry },
  { name: 'Migration20261121040000Integrations', class: Migration20261121040000Integrations },
  { name: 'Migration20261121050000Webhooks', class: Migration20261121050000Webhooks },
  { name: 'Migration20261122000000LeastPrivilege', class: Migration20261122000000LeastPrivilege },
  { name: 'Migration20261122010000WebhookEndpointLimit', class: Migration20261122010000WebhookEndpointLimit },
  { name: 'Migration20261123000000QuoteDetail', class: Migration20261123000000QuoteDetail },
  { name: 'Migration20261124070000DeveloperWebhooks', class: Migration20261124070000DeveloperWebhooks },
  { name: 'Migration20261124080000FieldSync', class: Migration20261124080000FieldSync },
  { name: 'Migration20261124090000V1Quotes', class: Migration20261124090000V1Quotes },
  { name: 'Migration20261124100000ProviderSync', class: Migration20261124100000ProviderSync },
  { name: 'Migration20261124110000OperationsMetrics', class: Migration20261124110000OperationsMetrics },
  { name: 'Migration20261124120000WebhookFormats', class: Migration20261124120000WebhookFormats },
  { name: 'Migration20261125190000WebhookEndpointDelivery', class: Migration20261125190000WebhookEndpointDelivery },
  { name: 'Migration20261126090000CurrentRateCard', class: Migration20261126090000CurrentRateCard },
  { name: 'Migration20261126100000DeletableForeignKeyIndexes', class: Migration20261126100000DeletableForeignKeyIndexes },
  { name: 'Migration20261126120000OperationsMetricsEveryTenant', class: Migration20261126120000OperationsMetricsEveryTenant },
  { name: 'Migration20261127000000AuditLog', class: Migration20261127000000AuditLog },
  { name: 'Migration20261127000100RunningReleases', class: Migration20261127000100RunningReleases },
  { name: 'Migration20261127000200WebhookTestDeliveries', class: Migration20261127000200WebhookTestDeliveries },
  { name: 'Migration20261127010000Team', class: Migration20261127010000Team },
  { name: 'Migration20261127010100FirstAdminInvitation', class: Migration20261127010100FirstAdminInvitation },
  { name: 'Migration20261127020000TenantSettings', class: Migration20261127020000TenantSettings },
  { name: 'Migration20261127020100FirstAdminDoor', class: Migration20261127020100FirstAdminDoor },
  { name: 'Migration20261127030000Pricebook', class: Migration20261127030000Pricebook },
  { name: 'Migration20261127040000RoutingData', class: Migration20261127040000RoutingData },
  { name: 'Migration20261127041000RoutingWorkerReadsNoUsers', class: Migration20261127041000RoutingWorkerReadsNoUsers },
  { name: 'Migration20261127050000CustomerQuotePage', class: Migration20261127050000CustomerQuotePage },
  { name: 'Migration20261127060000CompletionInvoices', class: Migration20261127060000CompletionInvoices },
  { name: 'Migration20261127070000TextSearch', class: Migration20261127070000TextSearch },
  { name: 'Migration20261128030000DispatchCoalescing', class: Migration20261128030000DispatchCoalescing },
];
