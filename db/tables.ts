import type { EntityManager } from '@mikro-orm/postgresql';
import type { ColumnType, Generated, Kysely } from 'kysely';

/**
 * The columns the list queries read, typed for MikroORM's Kysely builder (`em.getKysely`), so a
 * list's WHERE, ORDER BY and SELECT name columns the compiler checks instead of pushed strings.
 * Written from db/migrations (the migrations stay the schema's one source); a table or column a
 * list does not read is simply absent here. Timestamps read as Date, numeric and bigint as text
 * (node-postgres), date columns are read as text by the queries themselves.
 */

type Timestamp = ColumnType<Date, string | Date, string | Date>;
type Numeric = ColumnType<string, string | number, string | number>;
type Id = Generated<string>;

export interface Tables {
  users: { id: Id; organization_id: string; email: string; full_name: string; role: string; active: boolean; invited: boolean; last_login_at: ColumnType<Date | null, string | Date | null, string | Date | null>; created_at: Timestamp };
  customers: { id: Id; organization_id: string; name: string; email: string | null; created_at: Timestamp };
  quotes: {
    id: Id;
    organization_id: string;
    quote_number: number;
    status: string;
    revision: number;
    tax_region: string | null;
    customer_id: string | null;
    created_by_user_id: string | null;
    labor_tier_code: string;
    total_cost_cents: Numeric;
    total_amount_cents: Numeric;
    margin_percent: Numeric;
    applied_margin: Numeric;
    created_at: Timestamp;
    sent_at: Timestamp | null;
    approved_at: Timestamp | null;
    rejected_at: Timestamp | null;
    expired_at: Timestamp | null;
    paid_at: Timestamp | null;
  };
  quote_lines: {
    quote_id: string;
    position: number;
    reference: string | null;
    width_inches: Numeric;
    drop_inches: Numeric;
    quantity: number;
    fabric_sku_code: string;
    hardware_sku_code: string;
    motor_sku_code: string | null;
    trim_sku_code: string | null;
    cost_cents: Numeric;
    price_cents: Numeric;
  };
  catalogue_products: { id: Id; sku: string; name: string; fabric_sku_code: string; hardware_sku_code: string; trim_sku_code: string | null };
  quote_revisions: { quote_id: string; revision: number; rate_card_revision_id: string; created_by_user_id: string | null; created_at: Timestamp };
  rate_card_revisions: { id: Id; revision: Timestamp };
  work_orders: {
    id: Id;
    status: string;
    quote_id: string | null;
    assigned_technician_id: string | null;
    scheduled_date: ColumnType<string | null, string | null, string | null>;
    site_address: string | null;
    notes: string | null;
    created_at: Timestamp;
    dispatched_at: Timestamp | null;
    completed_at: Timestamp | null;
    cancelled_at: Timestamp | null;
    job_status: string;
    crew_id: string | null;
    site_id: string | null;
    actual_start: Timestamp | null;
    job_updated_at: Timestamp;
    customer_id: string | null;
  };
  work_order_history: {
    id: Id;
    work_order_id: string;
    sequence: ColumnType<string, never, never>;
    from_status: string | null;
    to_status: string;
    changed_by_user_id: string;
    changed_at: Timestamp;
    notes: string | null;
  };
  crews: { id: Id; name: string; foreman_user_id: string; created_at: Timestamp; updated_at: Timestamp };
  crew_members: { crew_id: string; user_id: string };
  sites: { id: Id; name: string; region: string };
  change_orders: { id: Id; work_order_id: string; sequence: number; status: string; labour_hours: Numeric; decided_by_user_id: string | null };
  time_entries: { id: Id; work_order_id: string; technician_id: string; started_at: Timestamp; ended_at: Timestamp; notes: string | null; created_at: Timestamp };
  material_draws: {
    id: Id;
    work_order_id: string;
    sku_code: string;
    quantity: Numeric;
    unit: string;
    van_id: string | null;
    drawn_by_user_id: string;
    created_at: Timestamp;
  };
  sync_records: {
    id: Id;
    provider: string;
    entity_type: string;
    local_id: string;
    external_id: string | null;
    status: string;
    attempts: number;
    amount_cents: Numeric | null;
    last_error: string | null;
    synced_at: Timestamp | null;
    updated_at: Timestamp;
  };
  provider_sync_runs: {
    id: Id;
    provider: string;
    workflow_id: string;
    started_at: Timestamp;
    finished_at: Timestamp | null;
    seen: number;
    applied: number;
    watermark_before: string | null;
    watermark_after: string | null;
    error: string | null;
  };
  webhook_deliveries: {
    id: Id;
    endpoint_id: string;
    event_id: string;
    event: string;
    series: number;
    status: string;
    attempts: number;
    last_error: string | null;
    created_at: Timestamp;
    updated_at: Timestamp;
    delivered_at: Timestamp | null;
    next_attempt_at: Timestamp | null;
    is_test: boolean;
  };
  webhook_delivery_attempts: {
    id: Id;
    delivery_id: string;
    endpoint_id: string;
    event_id: string;
    event: string;
    attempt: number;
    outcome: string;
    response_status: number | null;
    error: string | null;
    duration_ms: number;
    response_excerpt: string | null;
    request_headers: unknown;
    request_body: string | null;
    response_headers: unknown;
    attempted_at: Timestamp;
  };
  audit_events: {
    id: Id;
    organization_id: string;
    occurred_at: Timestamp;
    actor_type: string;
    actor_id: string | null;
    actor_email: string | null;
    action: string;
    entity_type: string;
    entity_id: string;
    changes: unknown;
    request_id: string | null;
  };
}

/**
 * The typed builder bound to `em`'s transaction: inside `inTenant` every statement it runs is the
 * tenant's (row-level security), exactly as `em.execute` would be.
 */
export const tablesOf = (em: EntityManager): Kysely<Tables> => em.getKysely<Tables>();
