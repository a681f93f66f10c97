import LinkHeader from 'http-link-header';

/**
 * The next page's URL from a response's `Link` header, read with an RFC 8288 parser (not our
 * own code), resolved against the URL the response came from; null on the last page.
 */
export function nextLink(res: Response): string | null {
  const header = res.headers.get('link');
  if (header === null) return null;
  const next = LinkHeader.parse(header).rel('next');
  if (next.length !== 1) throw new Error(`expected one rel="next" in Link: ${header}`);
  return new URL(next[0]!.uri, res.url).href;
}
