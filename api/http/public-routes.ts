/**
 * The routes that authenticate themselves (section 4: login, the OAuth callback's signed state,
 * the payments webhook's signature). Filled by the route declarations (`route()` with an `auth`
 * other than `bearer`), read by the bearer guard, which runs before routing and so cannot ask the
 * router. One declaration per route: nothing else keeps a list.
 */
export class PublicRoutes {
  private readonly routes: { method: string; pattern: RegExp }[] = [];

  /** `path` in Express syntax, e.g. `/api/v1/integrations/:provider/callback`. */
  add(method: string, path: string): void {
    const pattern = new RegExp(`^${path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : escapeRegExp(part))).join('/')}/?$`);
    this.routes.push({ method: method.toUpperCase(), pattern });
  }

  has(method: string, path: string): boolean {
    return this.routes.some((route) => route.method === method.toUpperCase() && route.pattern.test(path));
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
