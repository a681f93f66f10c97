import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../../scripts/infra/paths';
import { SETTING_NAMES } from '../../infra/runtime/settings';
import { SEARCH_ATTRIBUTES } from '../../infra/temporal/search-attributes';
import { createMetricsRegistry } from '../../infra/runtime/metrics';
import { createRequestMetrics } from '../../api/http/metrics';
import { createWorkerMetrics } from '../../worker/metrics';

interface Service {
  image?: string;
  restart?: string;
  entrypoint?: string[];
  build?: unknown;
  command?: string[] | string;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }>;
  mem_limit?: string;
}

// Docker cannot run on our machines; this reads the file the way compose would (anchors merged).
const compose = parse(readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

interface PrometheusConfig {
  rule_files: string[];
  scrape_configs: { job_name: string; static_configs?: { targets: string[] }[]; dns_sd_configs?: { names: string[]; type: string; port: number }[] }[];
}

const readConfig = (path: string) => readFileSync(join(projectRoot, path), 'utf8');
/** The file a service mounts at `target` (a path of this repository). */
function mounted(service: string, target: string): string {
  const volume = (services[service]?.volumes ?? []).find((v) => v.split(':')[1] === target);
  expect({ service, target, mounted: Boolean(volume) }).toEqual({ service, target, mounted: true });
  return volume!.split(':')[0]!.replace(/^\.\//, '');
}
/** Every metric name our processes export (counters' names include `_total`). */
const apiRegistry = createMetricsRegistry('api');
createRequestMetrics(apiRegistry);
const workerRegistry = createMetricsRegistry('worker');
createWorkerMetrics(workerRegistry);
const exported = new Set([apiRegistry, workerRegistry].flatMap((registry) => registry.getMetricsAsArray().map((metric) => metric.name)));
/** The shade_* metrics an expression reads (histogram series named by their metric). */
const shadeMetrics = (expr: string) => [...expr.matchAll(/\bshade_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''));

describe('docker-compose.yml', () => {
  // The whole production stack, each service checked and restarted.
  it('has every service the stack needs, each with a health check and a restart policy', () => {
    for (const name of ['postgres', 'temporal-schema', 'temporal', 'temporal-setup', 'temporal-ui', 'migrate', 'api', 'proxy', 'worker', 'otel-collector', 'jaeger', 'prometheus', 'grafana']) {
      expect({ name, present: Boolean(services[name]) }).toEqual({ name, present: true });
    }
    for (const [name, service] of Object.entries(services)) {
      expect({ name, healthcheck: Boolean(service.healthcheck?.test) }).toEqual({ name, healthcheck: true });
      expect({ name, restart: service.restart }).toEqual({ name, restart: expect.stringMatching(/^(unless-stopped|always|on-failure(:\d+)?)$/) });
    }
  });

  it('uses current, pinned images: no deprecated auto-setup, no floating tag', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.build) continue;
      expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^[a-z0-9./-]+:[0-9a-z][\w.-]*$/) });
      expect({ name, image: service.image }).not.toEqual({ name, image: expect.stringMatching(/auto-setup|:latest$/) });
    }
    expect(services.postgres!.image).toMatch(/^postgres:17\./);
    expect(services.temporal!.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
  });

  it('runs Temporal on the PostgreSQL of the stack, its schema set up by the admin tools first, and registers our search attributes', () => {
    const temporal = services.temporal!;
    expect(temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(temporal.depends_on?.['temporal-schema']?.condition).toBe('service_completed_successfully');
    const schema = services['temporal-schema']!;
    expect(schema.image).toMatch(/^temporalio\/admin-tools:/);
    expect(schema.depends_on?.postgres?.condition).toBe('service_healthy');
    const script = JSON.stringify(schema.command);
    for (const step of ['setup-schema -v 0.0', 'update-schema -d /etc/temporal/schema/postgresql/v12/$$schema/versioned', 'for db in temporal temporal_visibility']) expect(script).toContain(step);
    const setup = JSON.stringify(services['temporal-setup']);
    expect(services['temporal-setup']!.depends_on?.temporal?.condition).toBe('service_healthy');
    for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(setup).toContain(`--name ${name}`);
    expect(setup).toContain('namespace create');
    // The frontend, for the temporal CLI on the host (docs/operations.md), on its loopback only.
    expect(temporal.ports).toEqual(['127.0.0.1:7233:7233']);
  });

  it('publishes only the proxy beyond the host: every other published port is on loopback', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === 'proxy') continue;
      for (const port of service.ports ?? []) expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^127\.0\.0\.1:/) });
    }
  });

  it('passes every setting the code reads (D8) to the API and the worker, each only its own database password', () => {
    // Least privilege: a process never holds the other's database credentials.
    const otherPassword = { api: 'DATABASE_WORKER_PASSWORD', worker: 'DATABASE_APP_PASSWORD' } as const;
    for (const name of ['api', 'worker'] as const) {
      const env = services[name]!.environment ?? {};
      const missing = SETTING_NAMES.filter((setting) => setting !== otherPassword[name] && !(setting in env));
      expect({ service: name, missing, holdsOther: otherPassword[name] in env }).toEqual({ service: name, missing: [], holdsOther: false });
    }
    expect(services.migrate!.environment).toMatchObject({ DATABASE_APP_PASSWORD: expect.any(String), DATABASE_WORKER_PASSWORD: expect.any(String) });
    // The compiled image (scripts/container/Dockerfile): no tsx; the heap sized per replica
    // (bench:memory runs these command lines); the tracing preload first.
    const preload = ['--import', './scripts/container/extensionless.mjs', '--import', './dist/infra/runtime/instrument.js'];
    expect(services.api!.command).toEqual(['node', '--max-semi-space-size=1', '--max-old-space-size=160', ...preload, 'dist/api/main.js']);
    expect(services.worker!.command).toEqual(['node', '--max-semi-space-size=1', '--max-old-space-size=320', ...preload, 'dist/worker/main.js']);
    expect(services.migrate!.command).toEqual(['node', '--import', './scripts/container/extensionless.mjs', 'dist/scripts/migrate.js']);
  });

  // A stack missing a secret must not start half-configured: compose refuses before any container runs.
  it('requires every secret the stack cannot run without (fails fast, no default), each listed in docs/operations.md', () => {
    const requiredIn = (value: string | undefined) => [...(value ?? '').matchAll(/\$\{([A-Z_]+):\?[^}]+\}/g)].map((m) => m[1]);
    const required: Record<string, string[]> = {
      api: ['AUTH_TOKEN_SECRET', 'CREDENTIAL_ENCRYPTION_KEY', 'DATABASE_APP_PASSWORD'],
      worker: ['AUTH_TOKEN_SECRET', 'CREDENTIAL_ENCRYPTION_KEY', 'DATABASE_WORKER_PASSWORD'],
      migrate: ['AUTH_TOKEN_SECRET', 'CREDENTIAL_ENCRYPTION_KEY', 'DATABASE_APP_PASSWORD', 'DATABASE_WORKER_PASSWORD', 'TEMPORAL_DATABASE_PASSWORD'],
    };
    for (const [name, settings] of Object.entries(required)) {
      const env = services[name]!.environment ?? {};
      for (const setting of settings) expect({ service: name, setting, required: requiredIn(env[setting]) }).toEqual({ service: name, setting, required: [setting] });
    }
    // Only the migration step connects as the owner.
    expect(requiredIn(services.migrate!.environment?.DATABASE_URL)).toEqual(['POSTGRES_PASSWORD']);
    // Every variable compose requires is in the doc's table of required settings.
    const raw = readConfig('docker-compose.yml');
    const everyRequired = new Set([...raw.matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]!));
    expect([...everyRequired].sort()).toEqual(expect.arrayContaining(['AUTH_TOKEN_SECRET', 'CREDENTIAL_ENCRYPTION_KEY', 'GRAFANA_ADMIN_PASSWORD', 'POSTGRES_PASSWORD']));
    const operations = readConfig('docs/operations.md');
    const section = operations.slice(operations.indexOf('### Required settings'), operations.indexOf('### Secrets from files'));
    expect(section.length).toBeGreaterThan(0);
    for (const setting of everyRequired) expect({ setting, listed: section.includes(`| \`${setting}\` |`) }).toEqual({ setting, listed: true });
  });

  // Traces to the collector, metrics to Prometheus, none of it public.
  it('sends traces to the collector and lets Prometheus, and only it, scrape both processes\' /metrics', () => {
    for (const name of ['api', 'worker']) {
      expect(services[name]!.environment).toMatchObject({ OTEL_EXPORTER_OTLP_ENDPOINT: expect.stringContaining('http://otel-collector:4318'), METRICS_HOST: '0.0.0.0', METRICS_PORT: '9464', WORKER_METRICS_PORT: '9465' });
    }
    expect(services.api!.expose).toContain('9464');
    expect(services.worker!.expose).toContain('9465');
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? []) expect({ name, port }).not.toEqual({ name, port: expect.stringMatching(/:946[45](\/tcp)?$/) });
    }
    const prometheus = parse(readConfig(mounted('prometheus', '/etc/prometheus/prometheus.yml'))) as PrometheusConfig;
    // Static targets and DNS-discovered ones (the replicas of a service: see "scaling out" below).
    const targets = prometheus.scrape_configs.flatMap((job) => [
      ...(job.static_configs ?? []).flatMap((c) => c.targets),
      ...(job.dns_sd_configs ?? []).flatMap((c) => c.names.map((name) => `${name}:${c.port}`)),
    ]);
    expect(targets).toEqual(expect.arrayContaining(['api:9464', 'worker:9465', 'otel-collector:8888', 'temporal:8000']));
    expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    const collector = parse(readConfig(mounted('otel-collector', '/etc/otelcol-contrib/config.yaml'))) as { receivers: { otlp: { protocols: { http: { endpoint: string } } } }; service: { pipelines: { traces: { exporters: string[] } } } };
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(collector.service.pipelines.traces.exporters).toEqual(['otlphttp/jaeger']);
  });

  it('alerts on outbox lag, sync staleness, legs awaiting repair and disabled endpoints, from metrics the processes export', () => {
    const rules = (parse(readConfig(mounted('prometheus', '/etc/prometheus/alerts.yml'))) as { groups: { rules: { alert: string; expr: string; annotations: { runbook: string } }[] }[] }).groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(expect.arrayContaining(['ShadeOutboxLagging', 'ShadeSyncStale', 'ShadeLegsAwaitingRepair', 'ShadeWebhookEndpointDisabled']));
    const operations = readConfig('docs/operations.md');
    for (const rule of rules) {
      for (const metric of shadeMetrics(rule.expr)) expect({ alert: rule.alert, metric, exported: exported.has(metric) }).toEqual({ alert: rule.alert, metric, exported: true });
      // Each alert's runbook is a section of docs/operations.md.
      const anchor = rule.annotations.runbook.split('#')[1]!;
      expect({ alert: rule.alert, documented: operations.toLowerCase().includes(`## ${anchor.replace(/-/g, ' ')}`) }).toEqual({ alert: rule.alert, documented: true });
    }
  });

  it('provisions Grafana with the committed dashboard, whose every shade_* query reads an exported metric', () => {
    expect(mounted('grafana', '/var/lib/grafana/dashboards/shade-office')).toBe('docs/grafana');
    const dashboard = JSON.parse(readConfig('docs/grafana/shade-office.json')) as { uid: string; panels: { type: string; targets?: { expr: string }[] }[] };
    expect(dashboard.uid).toBe('shade-office');
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    expect(exprs.length).toBeGreaterThan(10);
    const used = new Set(exprs.flatMap(shadeMetrics));
    for (const metric of used) expect({ metric, exported: exported.has(metric) }).toEqual({ metric, exported: true });
    // Every metric of ours is on the dashboard.
    for (const metric of [...exported].filter((m) => m.startsWith('shade_') && m !== 'shade_operations_read_errors_total')) expect({ metric, onDashboard: used.has(metric) }).toEqual({ metric, onDashboard: true });
  });

  // Least privilege: each process holds only its own role's credentials; the migration step alone
  // holds the owner's (and PostgreSQL itself, whose owner it is). Temporal has a role of its own.
  it("gives no service but the migration step the owner's password, and Temporal a database role of its own", () => {
    const seesOwnerPassword = Object.entries(services)
      .filter(([, service]) => /\$\{POSTGRES_PASSWORD[:}]|shade_owner:/.test(JSON.stringify([service.environment, service.command, service.entrypoint, service.healthcheck])))
      .map(([name]) => name)
      .sort();
    expect(seesOwnerPassword).toEqual(['migrate', 'postgres']);
    // The API and the worker are told where the database is, and log in as their own role.
    expect(new URL(services.api!.environment!.DATABASE_URL!)).toMatchObject({ username: 'shade_app', password: '', hostname: 'postgres' });
    expect(new URL(services.worker!.environment!.DATABASE_URL!)).toMatchObject({ username: 'shade_worker', password: '', hostname: 'postgres' });
    // Temporal's server and schema tools log in as shade_temporal, which the migration step makes.
    expect(services.temporal!.environment).toMatchObject({ POSTGRES_USER: 'shade_temporal', POSTGRES_PWD: '${TEMPORAL_DATABASE_PASSWORD:?set TEMPORAL_DATABASE_PASSWORD}' });
    expect(services['temporal-schema']!.environment).toEqual({ SQL_PASSWORD: '${TEMPORAL_DATABASE_PASSWORD:?set TEMPORAL_DATABASE_PASSWORD}' });
    const schemaScript = JSON.stringify(services['temporal-schema']!.command);
    expect(schemaScript.match(/-u (\w+)/g)).toEqual(['-u shade_temporal', '-u shade_temporal']);
    expect(services['temporal-schema']!.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(services.migrate!.environment?.TEMPORAL_DATABASE_PASSWORD).toBe('${TEMPORAL_DATABASE_PASSWORD:?set TEMPORAL_DATABASE_PASSWORD}');
    const operations = readConfig('docs/operations.md');
    expect(operations).toMatch(/\| `TEMPORAL_DATABASE_PASSWORD` \| [^|]*shade_temporal[^|]* \| `migrate`, Temporal \|/);
  });

  // docs/operations.md, "Memory per replica", names the containers' memory; compose sets it.
  it('limits the API and the worker containers to the memory docs/operations.md gives them', () => {
    const operations = readConfig('docs/operations.md');
    const given = /Give the containers (\d+) MB\s+\(API\) and (\d+) MB \(worker\), as `docker-compose.yml` does/.exec(operations);
    expect(given).not.toBeNull();
    expect(services.api!.mem_limit).toBe(`${given![1]}m`);
    expect(services.worker!.mem_limit).toBe(`${given![2]}m`);
  });

  it('migrates before the API and the worker start', () => {
    for (const name of ['api', 'worker']) expect(services[name]!.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  // Only an address written by a proxy the deployment runs may count (section 8), and
  // transport is HTTPS (section 1).
  it('puts one real reverse proxy in front of the API: TLS ends there, only its ports are published, and the API trusts exactly that hop', () => {
    const proxy = services.proxy!;
    expect(proxy.image).toMatch(/^caddy:2\.\d+\.\d+-alpine$/);
    expect(proxy.ports).toEqual(expect.arrayContaining(['443:443', '80:80']));
    expect(proxy.depends_on?.api?.condition).toBe('service_healthy');
    const mount = (proxy.volumes ?? []).find((v) => v.endsWith(':/etc/caddy/Caddyfile:ro'));
    expect(mount).toBeDefined();
    const caddyfile = readFileSync(join(projectRoot, mount!.split(':')[0]!), 'utf8');
    // One site block, answered over HTTPS by Caddy's automatic TLS, forwarding to the API.
    expect(caddyfile).toMatch(/^\{\$SITE_ADDRESS:localhost\} \{$/m);
    expect(caddyfile).toMatch(/^\s*reverse_proxy \{$/m);
    expect(caddyfile).not.toMatch(/trusted_proxies|auto_https off|tls internal|http:\/\//);

    expect(services.api!.ports).toBeUndefined();
    expect(services.api!.expose).toEqual(['3000', '9464']);
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? []) expect({ name, port }).not.toEqual({ name, port: expect.stringMatching(/:3000(\/tcp)?$/) });
    }
    // The proxy reaches the API over the stack's network: it listens on every interface of its
    // container, not on the loopback that is API_HOST's default outside production.
    expect(services.api!.environment?.API_HOST).toBe('0.0.0.0');
    expect(services.api!.environment?.TRUST_PROXY_HOPS).toBe('1');
    expect(services.api!.environment?.PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:-https:\/\//);
  });
});

// Several machines' worth of replicas: `docker compose up --scale api=N --scale worker=M`.
describe('docker-compose.yml scaling out', () => {
  it('lets the API and the worker be scaled: no fixed container name, no host port of their own', () => {
    for (const name of ['api', 'worker']) {
      const service = services[name] as Service & { container_name?: string };
      expect({ name, container_name: service.container_name, ports: service.ports }).toEqual({ name, container_name: undefined, ports: undefined });
    }
  });

  it('has Prometheus discover every API and worker replica by DNS on the service name', () => {
    const prometheus = parse(readConfig(mounted('prometheus', '/etc/prometheus/prometheus.yml'))) as PrometheusConfig;
    const job = (port: string) => prometheus.scrape_configs.find((j) => (j.dns_sd_configs ?? []).some((c) => String(c.port) === port));
    for (const [service, port] of [['api', services.api!.environment!.METRICS_PORT!], ['worker', services.worker!.environment!.WORKER_METRICS_PORT!]] as const) {
      const found = job(port);
      expect({ service, discovery: found?.dns_sd_configs }).toEqual({ service, discovery: [expect.objectContaining({ names: [service], type: 'A', port: Number(port) })] });
      // No fixed target beside it: a single name would reach one replica only.
      expect({ service, static: found?.static_configs }).toEqual({ service, static: undefined });
    }
  });

  it('has Caddy balance over every API replica, found by DNS (dynamic a) and refreshed', () => {
    const caddyfile = readConfig(mounted('proxy', '/etc/caddy/Caddyfile'));
    const block = /^\s*reverse_proxy \{\n([\s\S]*?)^\t\}$/m.exec(caddyfile)?.[1] ?? '';
    const port = services.api!.environment!.PORT!;
    expect(block).toMatch(new RegExp(`dynamic a \\{\\s*name api\\s*port ${port}\\s*refresh \\d+s\\s*\\}`));
    expect(block).toMatch(/^\s*lb_policy round_robin$/m);
    // A replica that is gone is skipped and the request tried on another.
    expect(block).toMatch(/^\s*lb_try_duration \d+s$/m);
    expect(block).toMatch(/^\s*fail_duration \d+s$/m);
    // No fixed upstream beside the dynamic ones.
    expect(caddyfile).not.toMatch(/reverse_proxy api:/);
  });

  it("checks each worker replica's own liveness at /healthz on its metrics port, not the queue's poller count", () => {
    const test = services.worker!.healthcheck!.test as string[];
    const command = test.join(' ');
    expect(command).toContain(`http://127.0.0.1:${services.worker!.environment!.WORKER_METRICS_PORT}/healthz`);
    expect(command).toMatch(/process\.exit\(r\.ok \? 0 : 1\)/);
    expect(command).not.toContain('worker-health');
  });
});
