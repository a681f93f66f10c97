/**
 * The routes that authenticate themselves (section 4: login, the OAuth callback's signed state,
 * the payments webhook's signature) or need nothing. route() adds every route declared with
 * `auth` other than `bearer`, so the bearer guard and the OpenAPI document (`security: []`)
 * read the same declaration and cannot disagree.
 */
export class PublicRoutes {
  private readonly entries: { method: string; pattern: RegExp }[] = [];

  /** `path` in Express syntax; only literal segments and `:name` parameters are supported. */
  add(method: string, path: string): void {
    const pattern = path
      .split('/')
      .map((segment) => {
        if (/^:[A-Za-z_]+$/.test(segment)) return '[^/]+';
        if (!/^[A-Za-z0-9._~-]*$/.test(segment)) throw new Error(`public route ${path}: unsupported path syntax in "${segment}"`);
        return segment.replace(/\./g, '\\.');
      })
      .join('/');
    // Express matches with or without one trailing slash; so must the guard.
    this.entries.push({ method: method.toUpperCase(), pattern: new RegExp(`^${pattern}/?$`) });
  }

  /** `path` is the full path of the request (`req.baseUrl + req.path`). */
  includes(method: string, path: string): boolean {
    const upper = method.toUpperCase();
    return this.entries.some((entry) => entry.method === upper && entry.pattern.test(path));
  }
}
