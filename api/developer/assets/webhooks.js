// The deliveries page (D13): plain browser JavaScript over the public API, nothing else loaded.
// The token lives in this tab's sessionStorage; every call sends it as a bearer token.
'use strict';

(function deliveriesPage() {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = 'shade-office.developer.token';
  const state = { token: sessionStorage.getItem(TOKEN_KEY), endpoints: [], next: null, current: null, polling: null, shown: new Map() };

  /** Builds an element: el('li', { className: 'card' }, child, 'text', ...). */
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  const badge = (word) => el('span', { className: `badge ${word}`, textContent: word });
  const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');

  function say(text) {
    $('status').textContent = text;
  }

  /** The API's error envelope, shown as it says: its message, the fields it names, its request id. */
  function showError(error) {
    const box = $('error');
    box.replaceChildren();
    if (!error) {
      box.hidden = true;
      return;
    }
    box.append(el('strong', { textContent: error.message }));
    const fields = error.details && error.details.fields;
    if (fields) box.append(el('ul', {}, ...Object.entries(fields).map(([name, message]) => el('li', { textContent: `${name}: ${message}` }))));
    if (error.request_id) box.append(el('div', { className: 'meta', textContent: `Request id ${error.request_id}` }));
    box.hidden = false;
  }

  class ApiError extends Error {
    constructor(status, envelope) {
      super((envelope && envelope.message) || `The server answered ${status}.`);
      this.status = status;
      this.envelope = envelope || { message: this.message };
    }
  }

  async function api(path, options) {
    const init = { method: (options && options.method) || 'GET', headers: { accept: 'application/json' } };
    if (state.token) init.headers.authorization = `Bearer ${state.token}`;
    if (options && options.json !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(options.json);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch {
      throw new ApiError(0, { message: 'The server cannot be reached. Is it running?' });
    }
    const body = res.status === 204 ? null : await res.json().catch(() => null);
    if (res.status === 401 && state.token) {
      signOut('Your session has ended; sign in again.');
    }
    if (!res.ok) throw new ApiError(res.status, body && body.error);
    return { body, next: nextLink(res.headers.get('link')) };
  }

  function nextLink(header) {
    const match = header && header.match(/<([^>]+)>;\s*rel="next"/);
    if (!match) return null;
    const url = new URL(match[1], location.href);
    return url.pathname + url.search;
  }

  /** Runs an action with its button busy; any API error is shown, never thrown away. */
  async function act(button, work) {
    showError(null);
    if (button) button.disabled = true;
    try {
      await work();
    } catch (error) {
      showError(error instanceof ApiError ? error.envelope : { message: String(error) });
    } finally {
      if (button) button.disabled = false;
    }
  }

  function showSignedIn(signedIn) {
    $('sign-in').hidden = signedIn;
    $('signed-in').hidden = !signedIn;
    $('sign-out').hidden = !signedIn;
    $('who').hidden = !signedIn;
  }

  function signOut(message) {
    state.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    stopPolling();
    showSignedIn(false);
    say(message || 'Signed out.');
    $('workspace').focus();
  }

  async function signIn(event) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    await act(form.querySelector('button'), async () => {
      const { body } = await api('/api/v1/auth/login', {
        method: 'POST',
        json: { subdomain: String(data.get('subdomain')).trim(), email: String(data.get('email')).trim(), password: String(data.get('password')) },
      });
      state.token = body.access_token;
      sessionStorage.setItem(TOKEN_KEY, state.token);
      $('password').value = '';
      await start();
    });
  }

  async function start() {
    const { body: me } = await api('/api/v1/auth/me');
    $('who').textContent = `${me.email} · ${me.organization ? me.organization.subdomain : ''}`.replace(/ · $/, '');
    showSignedIn(true);
    await Promise.all([loadEndpoints(), loadEventNames()]);
    await loadDeliveries(false);
    $('main').focus();
  }

  async function loadEventNames() {
    // The event catalogue is the API document's `webhooks` section.
    const res = await fetch('/openapi.json');
    if (!res.ok) return;
    // Every format's catalogue: the `field:` and `events:` webhooks name their format first.
    const names = [...new Set(Object.keys((await res.json()).webhooks || {}).map((name) => name.replace(/^[a-z]+:/, '')))].sort();
    const select = $('filter-event');
    const chosen = select.value;
    select.replaceChildren(el('option', { value: '', textContent: 'Any event' }), ...names.map((name) => el('option', { value: name, textContent: name })));
    select.value = chosen;
  }

  function rateText(endpoint) {
    if (!endpoint.attempts_24h) return 'No attempts in the last 24 hours';
    const percent = Math.round(endpoint.success_rate_24h * 1000) / 10;
    return `${percent} % delivered of ${endpoint.attempts_24h} attempt${endpoint.attempts_24h === 1 ? '' : 's'} in the last 24 hours`;
  }

  /** The signing secret of a new or rotated endpoint: shown here once, never again. */
  function showSecret(endpoint, secret) {
    $('secret-for').textContent = `For ${endpoint.url}`;
    $('secret-value').textContent = secret;
    $('secret-box').hidden = false;
    $('secret-title').focus();
  }

  const eventsOf = (text) => text.split(',').map((name) => name.trim()).filter(Boolean);

  function button(text, label, secondary) {
    const node = el('button', { type: 'button', className: secondary ? 'secondary' : '', textContent: text });
    node.setAttribute('aria-label', label);
    return node;
  }

  function editForm(endpoint, card) {
    const form = el('form', { className: 'endpoint-form edit' });
    const field = (name, label, value) => {
      const id = `edit-${name}-${endpoint.id}`;
      return [el('label', { htmlFor: id, textContent: label }), el('input', { id, name, value: value || '' })];
    };
    form.append(...field('url', 'URL', endpoint.url), ...field('events', 'Events', endpoint.events.join(', ')), ...field('description', 'Description', endpoint.description));
    const save = el('button', { type: 'submit', textContent: 'Save' });
    const cancel = el('button', { type: 'button', className: 'secondary', textContent: 'Cancel' });
    cancel.addEventListener('click', () => form.remove());
    form.append(el('div', { className: 'actions' }, save, cancel));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(save, async () => {
        const data = new FormData(form);
        await api(`/api/v1/webhook-endpoints/${endpoint.id}`, {
          method: 'PATCH',
          json: { url: String(data.get('url')).trim(), events: eventsOf(String(data.get('events'))), description: String(data.get('description')).trim() || null },
        });
        await loadEndpoints();
        say(`Saved ${String(data.get('url')).trim()}.`);
      });
    });
    card.append(form);
    form.querySelector('input').focus();
  }

  /** A datetime-local value (the browser's time zone) for an instant. */
  function localInput(date) {
    const pad = (n) => String(n).padStart(2, '0');
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }

  /** Recovery: re-send every event the endpoint failed since a time (24 hours ago by default). */
  function recoverForm(endpoint, card) {
    const form = el('form', { className: 'endpoint-form recover' });
    const id = `recover-since-${endpoint.id}`;
    const since = el('input', { id, name: 'since', type: 'datetime-local', required: true, value: localInput(new Date(Date.now() - 24 * 3600 * 1000)) });
    const send = el('button', { type: 'submit', textContent: 'Re-send failed events' });
    const cancel = el('button', { type: 'button', className: 'secondary', textContent: 'Cancel' });
    cancel.addEventListener('click', () => form.remove());
    form.append(
      el('label', { htmlFor: id, textContent: 'Re-send what failed since' }),
      since,
      el('p', { className: 'hint', textContent: 'Every event this endpoint failed since then is sent again, once each, in the order it happened, with the same event id.' }),
      el('div', { className: 'actions' }, send, cancel),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(send, async () => {
        const chosen = new Date(since.value);
        if (!since.value || Number.isNaN(chosen.getTime())) throw new ApiError(0, { message: 'Choose the time to recover from.', details: { fields: { since: 'Required' } } });
        const { body } = await api(`/api/v1/webhook-endpoints/${endpoint.id}/recover`, { method: 'POST', json: { since: chosen.toISOString() } });
        form.remove();
        $('filter-endpoint').value = endpoint.id;
        $('filter-status').value = '';
        await loadDeliveries(false, true);
        const events = `${body.recovered} failed event${body.recovered === 1 ? '' : 's'}`;
        say(body.recovered === 0 ? `Nothing to recover: no event to ${endpoint.url} failed since ${when(body.since)}.` : `Re-sending ${events} since ${when(body.since)} to ${endpoint.url}.`);
        if (body.recovered > 0) pollUntil(() => pendingOf(endpoint.id), 60, (done) => (done ? `The recovery of ${events} is done.` : `The recovery of ${events} is still under way.`));
      });
    });
    card.append(form);
    since.focus();
  }

  /** True once the endpoint has no pending delivery. */
  async function pendingOf(endpointId) {
    const { body } = await api(`/api/v1/webhook-deliveries?endpoint_id=${endpointId}&status=pending&limit=1`);
    return body.data.length === 0;
  }

  async function loadEndpoints() {
    const { body } = await api('/api/v1/webhook-endpoints');
    state.endpoints = body.data;
    const list = $('endpoints');
    list.replaceChildren();
    if (state.endpoints.length === 0) list.append(el('li', { className: 'card', textContent: 'No endpoints yet: add one below.' }));
    for (const endpoint of state.endpoints) {
      const facts = el('div', { className: 'main' },
        el('div', { className: 'url', textContent: endpoint.url }),
        el('div', { className: 'meta', textContent: [endpoint.format, endpoint.description, endpoint.events.join(', ')].filter(Boolean).join(' · ') }),
        el('div', { className: 'meta rate', textContent: rateText(endpoint) }),
        endpoint.status === 'disabled' ? el('div', { className: 'meta', textContent: `Disabled ${when(endpoint.disabled_at)}: ${endpoint.disabled_reason || ''}` }) : null);
      const buttons = el('div', { className: 'actions' }, badge(endpoint.status));
      const card = el('li', { className: 'card' }, facts, buttons);
      card.dataset.endpoint = endpoint.id;
      const show = button('Deliveries', `Show the deliveries to ${endpoint.url}`, true);
      show.addEventListener('click', () => {
        $('filter-endpoint').value = endpoint.id;
        void act(show, () => loadDeliveries(false));
      });
      buttons.append(show);
      if (endpoint.status === 'enabled') {
        const test = button('Send test event', `Send a test event to ${endpoint.url}`, true);
        test.addEventListener('click', () => void act(test, async () => {
          const { body: sent } = await api(`/api/v1/webhook-endpoints/${endpoint.id}/test-events`, { method: 'POST', json: {} });
          $('filter-endpoint').value = '';
          $('filter-status').value = '';
          await loadDeliveries(false, true);
          say(`Test event ${sent.event} sent: delivery ${sent.delivery_id}.`);
          pollUntilSettled(sent.delivery_id, 60, 'test event');
        }));
        buttons.append(test);
        const recover = button('Recover failed', `Re-send what ${endpoint.url} failed since a given time`, true);
        recover.addEventListener('click', () => {
          const open = card.querySelector('form.recover');
          if (open) open.remove();
          else recoverForm(endpoint, card);
        });
        buttons.append(recover);
      }
      const edit = button('Edit', `Edit ${endpoint.url}`, true);
      edit.addEventListener('click', () => {
        const open = card.querySelector('form.edit');
        if (open) open.remove();
        else editForm(endpoint, card);
      });
      buttons.append(edit);
      const toggle = endpoint.status === 'disabled'
        ? button('Enable', `Enable ${endpoint.url} and deliver what it missed`)
        : button('Disable', `Disable ${endpoint.url}`, true);
      toggle.addEventListener('click', () => void act(toggle, async () => {
        const status = endpoint.status === 'disabled' ? 'enabled' : 'disabled';
        await api(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', json: { status } });
        await loadEndpoints();
        await loadDeliveries(false, true);
        say(status === 'enabled' ? `Enabled ${endpoint.url}; what it missed is being delivered.` : `Disabled ${endpoint.url}; its events are kept until it is enabled again.`);
      }));
      buttons.append(toggle);
      const rotate = button('Rotate secret', `Rotate the signing secret of ${endpoint.url}`, true);
      rotate.addEventListener('click', () => void act(rotate, async () => {
        const { body: rotated } = await api(`/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: 'POST' });
        showSecret(rotated, rotated.secret);
        say(`New secret for ${endpoint.url}; the old one keeps signing beside it for 24 hours.`);
      }));
      buttons.append(rotate);
      const remove = button('Delete', `Delete ${endpoint.url}`, true);
      remove.addEventListener('click', () => {
        if (!confirm(`Delete ${endpoint.url}? Nothing more is delivered to it, and its delivery log goes with it.`)) return;
        void act(remove, async () => {
          await api(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE' });
          await loadEndpoints();
          await loadDeliveries(false, true);
          say(`Deleted ${endpoint.url}.`);
        });
      });
      buttons.append(remove);
      list.append(card);
    }
    const select = $('filter-endpoint');
    const chosen = select.value;
    select.replaceChildren(el('option', { value: '', textContent: 'All endpoints' }), ...state.endpoints.map((e) => el('option', { value: e.id, textContent: e.url })));
    select.value = chosen;
  }

  async function addEndpoint(event) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    await act(form.querySelector('button[type=submit]'), async () => {
      const description = String(data.get('description')).trim();
      const { body: created } = await api('/api/v1/webhook-endpoints', {
        method: 'POST',
        json: { url: String(data.get('url')).trim(), format: String(data.get('format')), events: eventsOf(String(data.get('events'))), ...(description ? { description } : {}) },
      });
      form.reset();
      $('add-endpoint').open = false;
      await loadEndpoints();
      showSecret(created, created.secret);
      say(`Added ${created.url}.`);
    });
  }

  const endpointUrl = (id) => (state.endpoints.find((e) => e.id === id) || { url: id }).url;

  function deliveriesQuery() {
    const params = new URLSearchParams({ limit: '25' });
    for (const name of ['endpoint_id', 'status', 'event']) {
      const value = $('filters').elements[name].value;
      if (value) params.set(name, value);
    }
    return `/api/v1/webhook-deliveries?${params}`;
  }

  /** `quiet` keeps the status line as it is (a replay's progress is said there). */
  async function loadDeliveries(more, quiet) {
    const { body, next } = await api(more && state.next ? state.next : deliveriesQuery());
    const list = $('deliveries');
    if (!more) list.replaceChildren();
    state.next = next;
    $('more').hidden = !next;
    if (!more && body.data.length === 0) list.append(el('li', { className: 'card', textContent: 'No deliveries match these filters.' }));
    if (!more) state.shown.clear();
    for (const delivery of body.data) {
      state.shown.set(delivery.id, delivery);
      list.append(deliveryCard(delivery));
    }
    const shown = list.querySelectorAll('[data-delivery]').length;
    if (!quiet) say(`${shown} ${shown === 1 ? 'delivery' : 'deliveries'} shown${next ? '; more below' : ''}.`);
  }

  function deliveryCard(delivery) {
    const open = el('button', { type: 'button', className: 'secondary', textContent: 'Attempts' });
    open.setAttribute('aria-label', `Attempts of ${delivery.event} to ${endpointUrl(delivery.endpoint_id)}, ${delivery.status}, ${when(delivery.created_at)}`);
    open.addEventListener('click', () => void act(open, () => openDelivery(delivery)));
    const item = el('li', { className: 'card' },
      el('div', { className: 'main' },
        el('div', {}, badge(delivery.status), delivery.test ? ' ' : null, delivery.test ? badge('test') : null, ' ', el('strong', { textContent: delivery.event }), delivery.series > 0 ? el('span', { className: 'meta', textContent: ` · replay ${delivery.series}` }) : null),
        el('div', { className: 'url', textContent: endpointUrl(delivery.endpoint_id) }),
        el('div', { className: 'meta', textContent: `${when(delivery.created_at)} · ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}${delivery.last_error ? ` · ${delivery.last_error}` : ''}` }),
        delivery.status === 'pending' && delivery.next_attempt_at ? el('div', { className: 'meta next-attempt', textContent: `Next attempt ${when(delivery.next_attempt_at)}` }) : null),
      open);
    item.dataset.delivery = delivery.id;
    item.dataset.status = delivery.status;
    return item;
  }

  function headersText(headers) {
    return Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n');
  }

  function prettyBody(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  function attemptItem(attempt) {
    let request = [el('h5', { textContent: 'Request' }), el('p', { textContent: 'Nothing was sent.' })];
    if (attempt.request) {
      // The body as the exact bytes that were signed; pretty-printed JSON only as a second view.
      const body = el('pre', { className: 'mono body', textContent: attempt.request.body });
      body.dataset.view = 'exact';
      const view = el('button', { type: 'button', className: 'secondary', textContent: 'Pretty-print' });
      view.setAttribute('aria-label', `Show attempt ${attempt.attempt}'s body pretty-printed`);
      view.addEventListener('click', () => {
        const exact = body.dataset.view === 'exact';
        body.textContent = exact ? prettyBody(attempt.request.body) : attempt.request.body;
        body.dataset.view = exact ? 'pretty' : 'exact';
        view.textContent = exact ? 'Exact bytes' : 'Pretty-print';
        view.setAttribute('aria-label', exact ? `Show attempt ${attempt.attempt}'s body as the exact bytes signed` : `Show attempt ${attempt.attempt}'s body pretty-printed`);
      });
      request = [
        el('h5', { textContent: 'Request' }),
        el('pre', { className: 'mono', textContent: `POST ${endpointUrl(state.current.endpoint_id)}\n${headersText(attempt.request.headers)}` }),
        el('div', { className: 'actions' }, el('span', { className: 'meta', textContent: 'Body, exactly as signed' }), view),
        body,
      ];
    }
    const response = attempt.response
      ? [el('h5', { textContent: `Response ${attempt.response.status} in ${attempt.response.duration_ms} ms` }), el('pre', { className: 'mono', textContent: `${headersText(attempt.response.headers)}\n\n${attempt.response.body_excerpt}` })]
      : [el('h5', { textContent: 'No response' }), el('p', { textContent: `${attempt.error || 'No answer'} (after ${attempt.duration_ms} ms)` })];
    const item = el('li', { className: 'attempt' },
      el('h4', {}, `Attempt ${attempt.attempt} · `, badge(attempt.outcome === 'delivered' ? 'delivered' : 'failed'), ` · ${when(attempt.attempted_at)}`),
      el('div', { className: 'exchange' }, el('div', {}, ...request), el('div', {}, ...response)));
    item.dataset.attempt = String(attempt.attempt);
    return item;
  }

  /** `keepFocus`: a refresh of the open panel (while a replay settles) leaves the focus where it is. */
  async function openDelivery(delivery, keepFocus) {
    state.current = delivery;
    const { body } = await api(`/api/v1/webhook-endpoints/${delivery.endpoint_id}/deliveries?limit=100&delivery_id=${delivery.id}`);
    $('detail-title').textContent = `${delivery.event} to ${endpointUrl(delivery.endpoint_id)}`;
    const facts = [
      ['Status', badge(delivery.status)], ['Delivery', delivery.id], ['Event id', delivery.event_id],
      ['Created', when(delivery.created_at)], ['Attempts', String(delivery.attempts)], ['Last error', delivery.last_error || '—'],
      ...(delivery.status === 'pending' ? [['Next attempt', delivery.next_attempt_at ? when(delivery.next_attempt_at) : 'now']] : []),
      ...(delivery.test ? [['Test', 'A test event sent from this page']] : []),
    ];
    $('detail-facts').replaceChildren(...facts.flatMap(([term, value]) => [el('dt', { textContent: term }), el('dd', {}, value)]));
    $('attempts').replaceChildren(...(body.data.length ? body.data.map(attemptItem) : [el('li', { textContent: 'No attempt yet.' })]));
    $('detail').hidden = false;
    $('split').classList.add('open');
    $('detail').dataset.delivery = delivery.id;
    if (!keepFocus) $('detail-title').focus();
  }

  function stopPolling() {
    if (state.polling) clearTimeout(state.polling);
    state.polling = null;
  }

  /**
   * Every second, the list (and the open delivery) refresh until `done()` says so (about a minute
   * at most); then the endpoints too, whose last day's figures the attempts changed, and `told` says how it ended.
   */
  function pollUntil(done, rounds, told) {
    stopPolling();
    state.polling = setTimeout(() => void act(null, async () => {
      await loadDeliveries(false, true);
      const open = state.current && state.shown.get(state.current.id);
      if (open) await openDelivery(open, true);
      const finished = await done();
      if (!finished && rounds > 1) return pollUntil(done, rounds - 1, told);
      await loadEndpoints();
      say(told(finished));
    }), 1000);
  }

  /** After a replay or a test event: until the delivery is no longer pending. */
  function pollUntilSettled(deliveryId, rounds, what = 'replay') {
    const status = () => {
      const row = document.querySelector(`[data-delivery="${deliveryId}"]`);
      return row ? row.dataset.status : 'pending';
    };
    pollUntil(async () => status() !== 'pending', rounds, (finished) => `The ${what} ${finished ? `is ${status()}` : 'is still pending'}.`);
  }

  async function replay() {
    const delivery = state.current;
    const { body } = await api(`/api/v1/webhook-deliveries/${delivery.id}/replay`, { method: 'POST' });
    // Show every delivery so that the new one is on top, whatever the filters were; the panel
    // stays open and follows the new delivery as it settles.
    $('filter-status').value = '';
    await loadDeliveries(false, true);
    const replayed = state.shown.get(body.delivery_id);
    if (replayed) await openDelivery(replayed, true);
    say(`Replay started: delivery ${body.delivery_id}.`);
    pollUntilSettled(body.delivery_id, 60);
  }

  function closeDetail(focus) {
    $('detail').hidden = true;
    $('split').classList.remove('open');
    state.current = null;
    if (focus) $('deliveries-title').setAttribute('tabindex', '-1');
    if (focus) $('deliveries-title').focus();
  }

  function wire() {
    $('sign-in-form').addEventListener('submit', (event) => void signIn(event));
    $('sign-out').addEventListener('click', () => signOut());
    $('add-endpoint-form').addEventListener('submit', (event) => void addEndpoint(event));
    $('secret-done').addEventListener('click', () => {
      $('secret-box').hidden = true;
      $('secret-value').textContent = '';
    });
    $('filters').addEventListener('submit', (event) => {
      event.preventDefault();
      void act(event.currentTarget.querySelector('button[type=submit]'), () => loadDeliveries(false));
    });
    $('refresh').addEventListener('click', () => void act($('refresh'), async () => {
      await loadEndpoints();
      await loadDeliveries(false);
    }));
    $('more').addEventListener('click', () => void act($('more'), () => loadDeliveries(true)));
    $('replay').addEventListener('click', () => void act($('replay'), replay));
    $('close-detail').addEventListener('click', () => closeDetail(true));
    if (state.token) void act(null, start);
    else showSignedIn(false);
  }

  wire();
})();
