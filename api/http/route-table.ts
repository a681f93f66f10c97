import type { Express } from 'express';

export interface RouteEntry {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
}

const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/**
 * Section 4.1: the route table, read from the Express router itself, so a route added in code
 * is listed without anyone editing a list. Sorted by path, then method.
 */
export function routeTable(app: Express): RouteEntry[] {
  const stack = (app.router as unknown as { stack: Layer[] }).stack;
  const entries: RouteEntry[] = [];
  for (const layer of stack) {
    if (!layer.route) continue;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    for (const method of Object.keys(layer.route.methods)) {
      const upper = method.toUpperCase();
      if (!METHODS.has(upper)) continue;
      for (const path of paths) entries.push({ method: upper as RouteEntry['method'], path: path.replace(/:([A-Za-z_]+)/g, '{$1}') });
    }
  }
  return entries.sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path < b.path ? -1 : 1));
}
