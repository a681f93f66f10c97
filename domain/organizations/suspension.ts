import { forbidden, type DomainError } from '../errors/errors';

/**
 * D22: a suspended workspace. The operator suspends it (`npm run ops -- tenant suspend`); until it
 * is resumed nothing acts for it, and nothing of it is lost. What each door does, decided once here
 * and read by every one of them:
 *
 * - its people's requests (every interface, login, accepting an invitation, confirming a password
 *   reset) answer 403 `forbidden`, told only to who proves who they are (a token, a password, an
 *   emailed link); a link is not spent by the refusal and works again on resume if still valid;
 * - a password reset asked for meanwhile mails no link (the answer is the same 202 as always);
 * - its customers' quote pages answer a 403 page that says the quote is not available for now
 *   (not the neutral "no such link" page: the link is good and opens again on resume);
 * - its schedules pause (provider sync), the hourly quote expiry passes it by (its quotes expire
 *   at the first run after resume), and its outbound webhook deliveries are held, unattempted and
 *   not counted against the endpoint, and go out after resume;
 * - a price-book revision it dated for the future still becomes current at its instant (which
 *   revision prices a quote is decided by the database, not by a timer) and its `pricebook.published`
 *   is recorded then; its delivery waits with the other held deliveries.
 */
export interface Standing {
  suspendedAt: Date | null;
}

export const WORKSPACE_SUSPENDED = 'This workspace is suspended; its operator can resume it.';

export function isSuspended(standing: Standing): boolean {
  return standing.suspendedAt !== null;
}

/** The one refusal every door gives a suspended workspace. */
export function suspendedRefusal(): DomainError {
  return forbidden(WORKSPACE_SUSPENDED);
}

/** Throws the refusal when the workspace is suspended. */
export function refuseIfSuspended(standing: Standing): void {
  if (isSuspended(standing)) throw suspendedRefusal();
}
