import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../../scripts/infra/paths';
import { SETTING_NAMES } from '../../activities/runtime/settings';
import { SEARCH_ATTRIBUTES } from '../../activities/temporal/search-attributes';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }>;
}

// Docker cannot run on our machines; this reads the file the way compose would (anchors merged).
const compose = parse(readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('has every service the stack needs, each with a health check', () => {
    for (const name of ['postgres', 'temporal', 'temporal-ui', 'api', 'proxy', 'worker']) {
      expect({ name, present: Boolean(services[name]) }).toEqual({ name, present: true });
      expect({ name, healthcheck: Boolean(services[name]!.healthcheck?.test) }).toEqual({ name, healthcheck: true });
    }
  });

  it('runs Temporal on the PostgreSQL of the stack, and registers our search attributes', () => {
    const temporal = services.temporal!;
    expect(temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(temporal.depends_on?.postgres?.condition).toBe('service_healthy');
    const setup = JSON.stringify(services['temporal-setup']);
    for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(setup).toContain(`--name ${name}`);
  });

  it('passes every setting the code reads (D8) to the API and the worker, each only its own database password', () => {
    // Issue 11, least privilege: a process never holds the other's database credentials.
    const otherPassword = { api: 'DATABASE_WORKER_PASSWORD', worker: 'DATABASE_APP_PASSWORD' } as const;
    for (const name of ['api', 'worker'] as const) {
      const env = services[name]!.environment ?? {};
      const missing = SETTING_NAMES.filter((setting) => setting !== otherPassword[name] && !(setting in env));
      expect({ service: name, missing, holdsOther: otherPassword[name] in env }).toEqual({ service: name, missing: [], holdsOther: false });
    }
    expect(services.migrate!.environment).toMatchObject({ DATABASE_APP_PASSWORD: expect.any(String), DATABASE_WORKER_PASSWORD: expect.any(String) });
    expect(services.api!.command).toEqual(['node', '--import', 'tsx', 'api/main.ts']);
    expect(services.worker!.command).toEqual(['node', '--import', 'tsx', 'worker/main.ts']);
  });

  it('migrates before the API and the worker start', () => {
    for (const name of ['api', 'worker']) expect(services[name]!.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  // Issue 11: only an address written by a proxy the deployment runs may count (section 8), and
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
    expect(caddyfile).toMatch(/^\s*reverse_proxy api:3000$/m);
    expect(caddyfile).not.toMatch(/trusted_proxies|auto_https off|tls internal|http:\/\//);

    expect(services.api!.ports).toBeUndefined();
    expect(services.api!.expose).toEqual(['3000']);
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? []) expect({ name, port }).not.toEqual({ name, port: expect.stringMatching(/:3000(\/tcp)?$/) });
    }
    expect(services.api!.environment?.TRUST_PROXY_HOPS).toBe('1');
    expect(services.api!.environment?.PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:-https:\/\//);
  });
});
