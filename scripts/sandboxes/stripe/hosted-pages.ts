// The payments sandbox's own hosted pages (D24), for `npm start` on a fresh clone: the hosted
// invoice page (`hosted_invoice_url`) and the Checkout page (a session's `url`), on the sandbox's
// loopback origin. A test card pays, as in the provider's test mode: 4242 4242 4242 4242 succeeds,
// 4000 0000 0000 0002 is declined. Paying emits `invoice.paid` / `checkout.session.completed`,
// which the fake delivers, signed, to its registered webhook endpoints (our payments webhook).
// With real keys the sandbox does not run and the provider's own pages are used unchanged.
import type { FakeRequest, FakeResponse } from '../core/http-fake';
import type { StripeContext } from './context';
import { completeSessionAsCustomer } from './checkout';
import { renderInvoice } from './invoice-render';
import { payInvoiceAsCustomer } from './invoices';
import type { CheckoutSessionRec, InvoiceRec, StripeAccount } from './store';

export const TEST_CARD_SUCCEEDS = '4242424242424242';
export const TEST_CARD_DECLINED = '4000000000000002';

const INVOICE_PAGE = /^\/i\/(acct_[A-Za-z0-9]+)\/test_([A-Za-z0-9]+)$/;
const CHECKOUT_PAGE = /^\/c\/pay\/(cs_[A-Za-z0-9_]+)$/;

export interface HostedPagesDeps {
  accounts(): Iterable<StripeAccount>;
  ctx(account: StripeAccount): StripeContext;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const money = (cents: number, currency: string) => `${currency.toUpperCase()} ${(cents / 100).toFixed(2)}`;

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:0 auto;padding:1rem;color:#1a1f36;background:#f6f9fc}
.card{background:#fff;border:1px solid #e3e8ee;border-radius:8px;padding:1rem;margin:1rem 0}
table{width:100%;border-collapse:collapse}td{padding:.35rem 0;border-top:1px solid #e3e8ee}td.a{text-align:right;white-space:nowrap}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}input{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border:1px solid #a3acb9;border-radius:4px}
button{margin-top:1rem;width:100%;font:inherit;font-weight:700;padding:.7rem;border:0;border-radius:4px;background:#635bff;color:#fff}
.note{font-size:.85rem;color:#697386}.error{color:#c0123c;font-weight:600}.banner{background:#ffde92;padding:.4rem .6rem;border-radius:4px;font-size:.85rem}`;

/**
 * `returnsTo`: the origin a paid form is redirected to. A browser applies `form-action` to the
 * redirects that follow a form's post, so a Checkout page must name its session's success origin
 * or the customer's browser stops at the redirect (the payment itself already went through).
 */
function page(status: number, title: string, body: string, returnsTo?: string): FakeResponse {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title><style>${STYLE}</style></head><body><p class="banner">Local payments sandbox (test mode): no real card is charged.</p>${body}</body></html>`;
  const formAction = returnsTo ? `'self' ${returnsTo}` : "'self'";
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'` }, body: html };
}

/** The origin of a session's success URL, for its page's form-action; none when it has no parseable one. */
function successOrigin(session: CheckoutSessionRec): string | undefined {
  if (!session.successUrl) return undefined;
  try {
    const origin = new URL(session.successUrl).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function cardForm(action: string, error: string | null, pay: string): string {
  return `<form method="post" action="${escape(action)}" class="card">
<label for="card-number">Card number</label><input id="card-number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
<label for="card-expiry">Expiry (MM / YY)</label><input id="card-expiry" name="expiry" autocomplete="cc-exp" placeholder="12 / 34" required>
<label for="card-cvc">CVC</label><input id="card-cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required>
${error ? `<p class="error" role="alert">${escape(error)}</p>` : ''}<button type="submit" id="pay-button">${escape(pay)}</button>
<p class="note">Test cards: ${TEST_CARD_SUCCEEDS.replace(/(\d{4})(?=\d)/g, '$1 ')} pays; ${TEST_CARD_DECLINED.replace(/(\d{4})(?=\d)/g, '$1 ')} is declined.</p></form>`;
}

/** What a card number comes to in test mode: paid, declined, or not a card at all. */
function cardOutcome(body: Buffer): { ok: true } | { ok: false; message: string } {
  const number = (new URLSearchParams(body.toString('utf8')).get('card_number') ?? '').replace(/[\s-]/g, '');
  if (number === TEST_CARD_SUCCEEDS) return { ok: true };
  if (number === TEST_CARD_DECLINED) return { ok: false, message: 'Your card was declined.' };
  return { ok: false, message: `Your card number is not a test card. Use ${TEST_CARD_SUCCEEDS.replace(/(\d{4})(?=\d)/g, '$1 ')}.` };
}

function findInvoice(deps: HostedPagesDeps, accountId: string, token: string): { account: StripeAccount; inv: InvoiceRec } | undefined {
  for (const account of deps.accounts()) {
    if (account.id !== accountId) continue;
    for (const inv of account.invoices.values()) if (inv.hostedToken === token) return { account, inv };
  }
  return undefined;
}

function findSession(deps: HostedPagesDeps, id: string): { account: StripeAccount; session: CheckoutSessionRec } | undefined {
  for (const account of deps.accounts()) {
    const session = account.sessions.get(id);
    if (session) return { account, session };
  }
  return undefined;
}

function invoicePage(deps: HostedPagesDeps, account: StripeAccount, inv: InvoiceRec, path: string, status: number, error: string | null): FakeResponse {
  const shown = renderInvoice(deps.ctx(account), inv, ['lines']) as {
    number: string | null; currency: string; total: number; amount_due: number; status: string; description: string | null;
    lines: { data: { description: string | null; amount: number }[] };
  };
  const rows = shown.lines.data.map((l) => `<tr><td>${escape(l.description ?? '')}</td><td class="a">${escape(money(l.amount, shown.currency))}</td></tr>`).join('');
  const head = `<h1>Invoice ${escape(shown.number ?? inv.id)}</h1>${shown.description ? `<p>${escape(shown.description)}</p>` : ''}
<div class="card"><table>${rows}<tr><td><strong>Total</strong></td><td class="a"><strong id="invoice-total">${escape(money(shown.total, shown.currency))}</strong></td></tr></table></div>`;
  if (shown.status === 'paid') return page(status, 'Invoice paid', `${head}<p class="card" role="status" id="invoice-status">Paid. Thank you: a receipt is on its way.</p>`);
  if (shown.status !== 'open') return page(status, 'Invoice', `${head}<p class="card" role="status" id="invoice-status">This invoice is ${escape(shown.status)}; nothing is due.</p>`);
  return page(status, `Pay invoice ${shown.number ?? ''}`, `${head}${cardForm(path, error, `Pay ${money(shown.amount_due, shown.currency)}`)}`);
}

/** The hosted pages' requests, or undefined for anything else (the API's). */
export function hostedPage(deps: HostedPagesDeps, req: FakeRequest): FakeResponse | undefined {
  const invoice = INVOICE_PAGE.exec(req.path);
  if (invoice && (req.method === 'GET' || req.method === 'POST')) {
    const found = findInvoice(deps, invoice[1]!, invoice[2]!);
    if (!found) return page(404, 'No such invoice', '<h1>No such invoice</h1><p>This invoice link is not valid.</p>');
    if (req.method === 'GET') return invoicePage(deps, found.account, found.inv, req.path, 200, null);
    if (found.inv.status !== 'open') return invoicePage(deps, found.account, found.inv, req.path, 409, null);
    const outcome = cardOutcome(req.body);
    if (!outcome.ok) return invoicePage(deps, found.account, found.inv, req.path, 402, outcome.message);
    payInvoiceAsCustomer(deps.ctx(found.account), found.inv.id);
    return invoicePage(deps, found.account, found.inv, req.path, 200, null);
  }
  const checkout = CHECKOUT_PAGE.exec(req.path);
  if (checkout && (req.method === 'GET' || req.method === 'POST')) {
    const found = findSession(deps, checkout[1]!);
    if (!found) return page(404, 'No such checkout', '<h1>No such checkout</h1><p>This payment link is not valid.</p>');
    const { account, session } = found;
    const total = session.lines.reduce((sum, line) => sum + line.amount, 0);
    const head = `<h1>Pay <span id="checkout-total">${escape(money(total, session.currency))}</span></h1><div class="card"><table>${session.lines
      .map((l) => `<tr><td>${escape(l.description)}</td><td class="a">${escape(money(l.amount, session.currency))}</td></tr>`)
      .join('')}</table></div>`;
    if (session.status !== 'open') return page(req.method === 'GET' ? 200 : 409, 'Checkout', `${head}<p class="card" role="status">This checkout is ${escape(session.status)}.</p>`);
    if (req.method === 'GET') return page(200, 'Checkout', `${head}${cardForm(req.path, null, 'Pay')}`, successOrigin(session));
    const outcome = cardOutcome(req.body);
    if (!outcome.ok) return page(402, 'Checkout', `${head}${cardForm(req.path, outcome.message, 'Pay')}`, successOrigin(session));
    completeSessionAsCustomer(deps.ctx(account), session.id, undefined);
    if (session.successUrl) return { status: 303, headers: { location: session.successUrl.replace('{CHECKOUT_SESSION_ID}', session.id) } };
    return page(200, 'Paid', `${head}<p class="card" role="status">Paid. Thank you.</p>`);
  }
  return undefined;
}
