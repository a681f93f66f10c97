// Generated from /openapi.json by openapi-typescript (npm run openapi:types); do not edit.
// test/integration/openapi-client-types.test.ts fails when it no longer matches the document.
export interface paths {
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness with a database round trip (exempt from the broad rate limit)
         * @description 200 when the database answers within two seconds, 503 (still the Health object) when it does not. No token, no rate limit.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The dated API versions, their changes and how long each is supported
         * @description Send `Service-Version: YYYY-MM-DD` on a request to be answered in that version; without it the workspace’s pinned version applies (the current one at its first request). Every answer under /api/v1 and /v1 says its version in `Service-Version`. A version is supported twelve months after the next one’s release, and retired only after that, once listed here.
         */
        get: operations["listVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/routes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every method and path this process dispatches, sorted by path then method
         * @description Read from the router itself, so it lists exactly what this process answers. It exists because every unauthenticated request under /api/v1, to a real or an invented path, answers 401 alike. Discloses no handlers, schemas or configuration.
         */
        get: operations["listRoutes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1.0 document
         * @description Generated from the zod schemas that validate every request, with the outbound events under `webhooks`.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Interactive API reference (assets served by this app)
         * @description A page that renders /openapi.json with Swagger UI, every asset served by this app (no CDN).
         */
        get: operations["getApiReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/connectors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Platform readiness of each provider, in registry order
         * @description Whether this deployment can use each provider at all. Reports no tenant rows and names no settings.
         */
        get: operations["listConnectors"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange workspace, email and password for a 900-second bearer token
         * @description The workspace subdomain is part of the credential. Every refusal (wrong password, unknown email or workspace, deactivated account) answers the same 401 `invalid_credentials` in the same time. Send the token as `Authorization: Bearer <access_token>`.
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller as the database says now
         * @description The user, role and workspace behind the token, read from the database on this request (a role change shows at once).
         */
        get: operations["getProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change your name
         * @description Any role; answers the profile as `GET /api/v1/auth/me` does.
         */
        patch: operations["updateProfile"];
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's users, oldest first
         * @description Every user of the workspace with their role and status (`active`, `invited` or `deactivated`), in the order they joined. At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).
         */
        get: operations["listUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Invite a user: an email with a single-use link valid 72 hours
         * @description Creates the user as `invited` and emails them a link to choose their password (`POST /api/v1/auth/invitations/accept`). An email already in the workspace is 409. At most 30 invitations an hour per workspace (429 with Retry-After beyond).
         */
        post: operations["inviteUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an invited user a new link; the old one stops working
         * @description At most 5 new links an hour per user (429 with Retry-After beyond). A user who already accepted is 409.
         */
        post: operations["resendInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a user's name, role or status
         * @description The workspace's last active ADMIN cannot be demoted or deactivated (409). A deactivated user's tokens stop at once. A technician who is deactivated (or stops being a TECHNICIAN) leaves their crews: `affected_jobs` lists the open jobs of those crews, and a crew they led gets its longest-serving member as foreman, or none.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/auth/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation: choose a password and log in
         * @description The token of the emailed link, used once. A used, replaced, expired or unknown token is 400 with the one message "This link is not valid: it may have expired, been used, or been replaced by a newer one."
         */
        post: operations["acceptInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/password-resets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ask for a password reset link (always 202)
         * @description The same 202 in the same time for every workspace and email, existing or not; an active account gets an email with a single-use link valid 60 minutes. Limited like login: ten per fifteen minutes for one workspace and email.
         */
        post: operations["requestPasswordReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/password-resets/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Choose a new password with a reset link
         * @description Every access token issued to the user before stops working at once. A used, replaced, expired or unknown token is 400 with the one message "This link is not valid: it may have expired, been used, or been replaced by a newer one."
         */
        post: operations["confirmPasswordReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change your password
         * @description Any role. Every access token issued before, this one included, stops working; log in again.
         */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quotes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's quotes, newest first, cursor-paginated; by number or by text
         * @description Pass `next_cursor` back as `cursor` for the next page; null means the last page (the `Link` header rel="next" says the same, as on every list). `number` finds the quote of that number; `q` finds text in the customer’s name or the reference (Q-<number>). TECHNICIAN is refused (quotes carry cost and margin).
         */
        get: operations["listQuotes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quotes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One quote with its lines and its calculation
         * @description The QuoteSummary fields, the customer’s email, when the quote was sent, approved, rejected, expired or paid, each line as it was asked for (dimensions and SKU codes, with its cost and price), and the calculation as calculate answered it. TECHNICIAN is refused (cost and margin).
         */
        get: operations["getQuote"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quotes/calculate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Price a configuration from the tenant's rate card; persist it as a DRAFT quote when asked
         * @description Send dimensions and SKU codes only: every figure comes from the tenant’s current rate card (docs/pricing.md has the formulas). Without `targetMargin` the margin floor applies; below the floor needs `marginOverride.reason` and an ADMIN. `persist: true` keeps it as a DRAFT quote with the next quote number.
         */
        post: operations["calculateQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quotes/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a DRAFT or SENT quote: emits quote.approved and fans out to the connected providers once
         * @description Freezes the calculation (invoices use it, never a recalculation), emits `quote.approved` after the commit, and starts the provider fan-out (payments invoice, accounting, CRM); `GET /api/v1/integrations/syncs` shows each leg. A second approve is a 409 that changes nothing.
         */
        post: operations["approveQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quotes/{id}/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a DRAFT quote to its customer (or a SENT one again) with a link to the quote's page
         * @description DRAFT to SENT; a SENT quote can still be approved or rejected. Each send makes a new link to the quote's page, `<PUBLIC_BASE_URL>/q/<token>`, where the customer reads the quote, downloads its PDF, and accepts or declines it; the link is emailed to the customer when they have an email, and answered as `page_url` either way. Sending a SENT quote again sends a new link and voids the old one. The link stops working when the quote leaves SENT or when it expires (the workspace’s `quote_validity_days`). Any other state is a 409.
         */
        post: operations["sendQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quotes/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a DRAFT or SENT quote
         * @description DRAFT or SENT to REJECTED (final); the link of a SENT quote's page stops working. Any other state is a 409.
         */
        post: operations["rejectQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/q/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The customer's page of a sent quote (HTML, no login)
         * @description The link emailed by `POST /api/v1/quotes/{id}/send`. While the quote is SENT and the link valid: the contractor, the quote number, each line with its price, the tax lines of the quote's region, the total, until when it is valid, a PDF link, and the accept and decline forms. After the customer's own decision, what they decided. Any other link: one neutral page. Rate-limited per address.
         */
        get: operations["getQuotePage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/q/{token}/quote.pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The PDF of the quote the page shows
         * @description The same figures as the page, as a PDF (PDFKit). Only while the link opens the quote; otherwise the neutral page.
         */
        get: operations["getQuotePagePdf"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/q/{token}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The customer accepts the quote by typing their name
         * @description The page's accept form: the same approval as `POST /api/v1/quotes/{id}/approve` (one `quote.approved`, the same fan-out), as the user who sent the quote, with the acceptance (typed name, time, client address, user agent) recorded on the quote. Only from this deployment's own pages (Origin / Sec-Fetch-Site, and the form's token bound to the link); a second decision, or one after the office decided, changes nothing (409, the page says what happened).
         */
        post: operations["acceptQuoteOnPage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/q/{token}/decline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The customer declines the quote, with an optional reason
         * @description The page's decline form: the quote moves to REJECTED with the reason. Only from this deployment's own pages (Origin / Sec-Fetch-Site, and the form's token bound to the link); a second decision, or one after the office decided, changes nothing (409, the page says what happened).
         */
        post: operations["declineQuoteOnPage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quotes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant’s quotes, newest first; by reference, status or text
         * @description Every quote of the workspace, whichever interface made it, each as `GET /v1/quotes/{id}` answers it. `reference=Q-12` finds quote 12; `q` finds text in the customer’s name or the reference. Pass `next_cursor` back as `cursor` while `has_more` is true.
         */
        get: operations["listV1Quotes"];
        put?: never;
        /**
         * Price a configuration and keep it as a DRAFT quote
         * @description Each line names a product of the catalogue; the same engine as `/api/v1/quotes/calculate` prices it from the tenant’s current rate card, at the margin floor, and the tax lines come from the region’s GST/HST/PST/QST rates. The quote is the same record as `/api/v1/quotes` lists and approves. Records `quote.created`. With an `Idempotency-Key` the first answer is answered again for 24 hours.
         */
        post: operations["createV1Quote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quotes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A quote at its latest revision, whichever interface made it
         * @description A quote is one record: this reads a quote made through `/v1/quotes` or priced through `/api/v1/quotes/calculate`, with its status now (it may have been sent or approved through `/api/`). A quote priced through `/api/` names component SKUs rather than catalogue products, so its lines’ `sku` and `controlSide` are null.
         */
        get: operations["getV1Quote"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quotes/{id}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new revision of a DRAFT or SENT quote
         * @description The quote priced anew from this body as revision n+1, with its own `quote.created`. A quote in any other status is a 409.
         */
        post: operations["reviseV1Quote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The catalogue’s products with their component SKUs
         * @description A product bundles a fabric, a hardware and optionally a trim SKU of the rate card. Pass `next_cursor` back as `cursor` while `has_more` is true.
         */
        get: operations["listV1Products"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/customers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant’s customers, oldest first; by text
         * @description `q` finds text in the name or the email. Pass `next_cursor` back as `cursor` while `has_more` is true.
         */
        get: operations["listV1Customers"];
        put?: never;
        /**
         * Add a customer
         * @description A customer with an email is one customer per tenant: posting an email the tenant has answers that customer (200) instead of a new one (201).
         */
        post: operations["createV1Customer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricebooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant’s rate card and its current revision
         * @description One price book per tenant: its id is what a quote names as `pricebookId`, its `revision` what prices a quote made now.
         */
        get: operations["listV1Pricebooks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricebooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The current revision of the price book, whole
         * @description The revision that prices a quote made now: settings, every SKU (inactive ones too), labour tiers and products, exact decimals as strings.
         */
        get: operations["getPricebook"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricebooks/{id}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The price book’s revisions, newest first
         * @description A scheduled revision (a future `effective_from`) is listed with `current: false` until its instant. Pass `next_cursor` back as `cursor` for the next page.
         */
        get: operations["listPricebookRevisions"];
        put?: never;
        /**
         * Publish a change set as a new revision
         * @description The changes apply, in order, to the newest revision, which must be `base_revision` (409 otherwise: another admin published first). All or nothing: each refused change is reported at its dotted path (`changes.3.sku.unit_cost_cents`). `adjust_costs` rounds as docs/pricing.md states (half away from zero, to the cent). `dry_run: true` answers the revision that would be published, with its `changes`, and writes nothing (200). A future `effective_from` makes the revision current at that instant (quotes priced before it use the revision current then); `pricebook.published` is sent when it becomes current. Records an audit event.
         */
        post: operations["publishPricebookRevision"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricebooks/{id}/revisions/{revision}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One revision whole, optionally compared to another
         * @description With `compare_to=<revision>`, `changes` lists every field that differs from that revision to this one: `{entity, key, field, before, after}`.
         */
        get: operations["getPricebookRevision"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricebooks/{id}/export.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A revision’s SKUs as CSV
         * @description UTF-8 with a BOM, CRLF line ends, RFC 4180 quoting; header `code,component,description,unit,unit_cost_cents,active`. A cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading apostrophe (OWASP CSV injection), which the import reads back.
         */
        get: operations["exportPricebookCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pricebooks/{id}/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import SKUs from CSV: validate, or publish one revision
         * @description The body is the CSV file (`text/csv`, UTF-8, BOM and CRLF accepted), with the export’s header. Each row creates or updates the SKU of its code; SKUs not in the file are unchanged. `dry_run` defaults to true: a result per row (`created`, `updated`, `unchanged`, or `refused` with its complaints), nothing written. With `dry_run=false` the whole file is one new revision (201), or nothing when any row is refused (422 with each complaint at `rows.<line>.<column>`). At most 5,000 rows; a missing or extra column, another encoding, or a bare formula cell is refused.
         */
        post: operations["importPricebookCsv"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/work-orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Scheduled work, soonest first (unscheduled last); a TECHNICIAN sees only their own
         * @description ADMIN and SALES see every work order of the workspace, a TECHNICIAN only those assigned to them. No cost, margin or quote total. At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`); follow it until it is absent.
         */
        get: operations["listWorkOrders"];
        put?: never;
        /**
         * Dispatch a job (ADMIN); it starts PENDING
         * @description Every field is optional. The quote and the technician must be of this workspace (404 names which was not); the assignee must be an active TECHNICIAN (400).
         */
        post: operations["createWorkOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/work-orders/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One work order; a TECHNICIAN reads only their own
         * @description The work order as the list shows it. ADMIN and SALES read any work order of the workspace, a TECHNICIAN only one assigned to them. No cost, margin or quote total.
         */
        get: operations["getWorkOrder"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a work order’s day, site or notes (ADMIN)
         * @description Only the fields sent change; null clears one. The history gains an entry naming each change. A DISPATCHED work order moved to another day goes back to PENDING (it must be dispatched again for the new day), with `work_order.pending` and `job.status_changed` as that status change records. A work order moved to another day, or unscheduled, leaves its crew's route of the old day (that route fires `dispatch.updated`, reason `reassignment`) and is on no route of the new day until the day is planned or sequenced. A COMPLETED or CANCELLED work order is final: 409.
         */
        patch: operations["editWorkOrder"];
        trace?: never;
    };
    "/api/v1/work-orders/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A work order's history, oldest first: creation, each status change with who and when, and the notes sent with them
         * @description Who may read it is who may read the work order: ADMIN and SALES any, a TECHNICIAN only one assigned to them. Notes sent with a repeated status are an entry whose from_status and to_status are equal. Paged like the lists (`Link` rel="next").
         */
        get: operations["listWorkOrderHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/work-orders/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Move a work order to another status (ADMIN any; TECHNICIAN only their own)
         * @description PENDING to DISPATCHED or CANCELLED; DISPATCHED to COMPLETED, PENDING or CANCELLED. A real move emits `work_order.<status>`; the same status again answers `unchanged: true` and emits nothing. `notes` are kept in the history either way (GET .../history).
         */
        patch: operations["updateWorkOrderStatus"];
        trace?: never;
    };
    "/api/v1/quotes/{id}/invoice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The invoice written at approval, as the payments provider has it
         * @description Read-only; asks the payments provider for the invoice the approval (or POST .../invoice) recorded. `mode` comes from the invoice itself.
         */
        get: operations["getQuoteInvoice"];
        put?: never;
        /**
         * Ensure exactly one invoice exists for an approved quote (runs the payments leg alone)
         * @description Idempotent. A recorded invoice is answered unchanged (200); otherwise the payments leg runs again with the same idempotency keys and the amounts frozen at approval (201). It does not re-emit quote.approved nor repeat the accounting or CRM legs.
         */
        post: operations["ensureQuoteInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quotes/{id}/checkout-session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A hosted payment page for an approved quote (reused while open)
         * @description Send `{}` for the default return origin. The page charges the frozen lines plus one line per tax of the quote’s region (13 % HST for a quote made through `/api/`). While a session is open the same one is answered (200, `reused: true`); a paid quote is a 409.
         */
        post: operations["createCheckoutSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/payments/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The payments provider's events, authenticated by the payments-signature header
         * @description For the payments provider, not for API clients. No token: the HMAC in `payments-signature` over the exact bytes received authenticates it (300-second tolerance). `invoice.paid` sets `paid_at` on the originating quote once; a repeated event id is acknowledged and ignored.
         */
        post: operations["receivePaymentsEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every provider, connected or not: the platform's configuration and this workspace's connection (no token, only expiry times)
         * @description One entry per provider. `configured` is about the platform, `connection` about this workspace. No token or secret is ever shown, only expiry times.
         */
        get: operations["listIntegrations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/syncs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The sync log: most recent attempts first
         * @description What each approval fan-out leg did, per quote and provider: SUCCEEDED with the provider’s id, FAILED with attempts and last error, SKIPPED with the reason. At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).
         */
        get: operations["listSyncRecords"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/sync-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The scheduled provider sync runs: most recent first
         * @description Every run of this workspace’s provider sync (one Temporal schedule per connected provider, every `PROVIDER_SYNC_INTERVAL`): when it started and finished, the changes it read and applied, the watermark before and after, and its error. At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).
         */
        get: operations["listProviderSyncRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/{provider}/connect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The provider's consent URL, with a signed single-use state valid ten minutes (not a redirect)
         * @description Open `authorize_url` in a browser and approve at the provider; it sends the browser back to the callback, which connects the workspace. `payments` is the platform’s own account and cannot be connected (400).
         */
        post: operations["connectIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Disconnect: credentials erased, sync rows kept; idempotent
         * @description Any connection becomes DISCONNECTED, its stored credentials are erased (and revoked at the provider, best effort). Calling it again answers the same.
         */
        delete: operations["disconnectIntegration"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/{provider}/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The provider's redirect after consent; authenticated by the signed state; answers a page, never JSON
         * @description For the browser the provider redirects, not for API clients. No token: the signed, single-use `state` (ten minutes) authenticates it. Every outcome is an HTML page, errors included.
         */
        get: operations["integrationCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's webhook endpoints (no secrets)
         * @description Every endpoint of the workspace, oldest first, without secrets. Paged like every list: `next_cursor` back as `cursor`, or follow the `Link` header rel="next".
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Subscribe an https URL to events; the signing secret is shown only in this answer
         * @description `events` lists names of the catalogue (see `webhooks` in this document) or is exactly `["*"]`. The URL must resolve to public addresses only, checked now and again at every delivery. Keep `secret`: it signs every delivery and is not shown again. `format` (`core` by default, `field` or `events`) is fixed here; `events` are names of that format's catalogue (422 otherwise), and the format decides the envelope, headers, response window and retry schedule (docs/webhooks.md).
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove an endpoint and its delivery log
         * @description Nothing more is delivered to it; its deliveries and attempt log go with it.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change url, events, description or status; re-enabling replays what was missed
         * @description Only the keys sent change. Events of a disabled endpoint are kept; setting `status: enabled` again delivers them.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new signing secret, shown once; the old one signs beside it for 24 hours
         * @description During the 24 hours after a rotation each delivery carries two `v1` signatures, one per secret, so receivers can switch without missing any.
         */
        post: operations["rotateWebhookEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every delivery attempt to the endpoint, newest first
         * @description Each attempt with its event, attempt number, outcome, response status or error and duration; its request as sent (headers, body) and the response (status, headers, the first 4 KiB of the body, duration). `delivery_id` narrows it to one delivery. At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).
         */
        get: operations["listWebhookDeliveryAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{id}/test-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to this endpoint alone
         * @description The example data of an event this endpoint receives (by default the first of its format's catalogue that it subscribes to), signed and delivered like any other event, to this endpoint only; its delivery is marked `test: true` in the deliveries list. Use it to check a receiver's signature verification. 409 when the endpoint is disabled, 422 for an event it does not receive.
         */
        post: operations["sendWebhookTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-endpoints/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-send every event the endpoint failed since a given time, in order, with the same envelope ids
         * @description Every event recorded at or after `since` whose latest delivery to this endpoint failed (its attempts used up, or refused) is delivered again, once each: a new delivery one `series` higher, with the same envelope id and bytes, so a receiver that de-duplicates on the id sees each at most once. They are sent one after another in the order the events happened. An event still pending or since delivered is left alone, so asking twice re-sends nothing twice. Recorded in the audit log (`webhook_endpoint.recovered`). 409 when the endpoint is disabled (enabling it delivers what it missed), 422 for a `since` in the future.
         */
        post: operations["recoverWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's deliveries, newest first, by endpoint, status and event
         * @description One row per delivery (an event to an endpoint; a replay is a new one with the next `series`), newest first, optionally only of one endpoint, one status or one event. Its attempts are `GET /api/v1/webhook-endpoints/{id}/deliveries?delivery_id=`. At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-deliveries/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new series of attempts of the same event (same envelope id) to the same endpoint
         * @description The same bytes and envelope id as the original, so a receiver that de-duplicates on the id sees it once.
         */
        post: operations["replayWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace, with its technical contact and settings
         * @description The technical contact is emailed when a webhook endpoint is disabled. Unless set, it is the first ADMIN's email. The settings of quoting, the working day and routing, every default applied.
         */
        get: operations["getOrganization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the workspace's settings and technical contact
         * @description Only the fields named change; each is validated (422 with the dotted path of the first complaint, nothing stored). `technical_contact_email` must be an email address; null clears it, so the first ADMIN's email is used. `time_zone` is an IANA name and `working_day_start` `HH:mm`; `quote_validity_days` 1-365; `depot` WGS84 (`lat` -90..90, `lon` -180..180; null clears it), `road_factor` 1-3 (two decimals), `average_speed_kmh` 5-130, `overtime_cap_minutes` 0-480, `eta_drift_threshold_minutes` 1-240, `dispatch_coalesce_seconds` 0-300. Every change is audited with each field's before and after.
         */
        patch: operations["updateOrganization"];
        trace?: never;
    };
    "/api/v1/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every administrative change, newest first, field by field
         * @description One event per change to users and roles, invitations, password resets (that one happened, never the token), the price book, webhook endpoints (a rotation, never the secret), integrations, organization settings, plans and suspensions; written in the same transaction as the change. Narrow by `entity_type` and `entity_id`, `actor_id`, `action` or `since`. At most `limit` per page: while more follow, the `Link` header names the next page.
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/developer/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The webhook deliveries page: endpoints, deliveries, each attempt, Replay
         * @description Sign in with workspace, email and password (an ADMIN); the endpoints with their status; the deliveries newest first, filtered by endpoint, status and event; each attempt's request and response; and a Replay button. It uses only this public API.
         */
        get: operations["getWebhookDeliveriesPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Jobs, oldest change first: the dispatch board's incremental feed
         * @description Ordered by `updated_at` then `job_id`. Poll with the newest `updated_at` you have seen as `updated_since` (strict), or with `next_cursor`: either way no change is ever missed, even one whose transaction commits after a later one (docs/field-sync.md). ADMIN and SALES see every job of the tenant, a TECHNICIAN only those of their crews.
         */
        get: operations["listJobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One job with its change orders, time entries and material draws
         * @description The job with its crew, site, schedule and logged hours; 404 `job-not-found` when the id is unknown to the tenant or, for a TECHNICIAN, not a job of their crews.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Move a job to another status (the job status table)
         * @description scheduled: dispatched (a crew is assigned), cancelled; dispatched: in_progress, scheduled, complete, cancelled; in_progress: on_hold, complete, cancelled; on_hold: in_progress, cancelled; complete and cancelled are final. Anything else is 409 `invalid-transition`; a repeated status is 200 with nothing changed. Each move records `job.status_changed`, `job.dispatched` or `job.completed` as they apply, and `work_order.*` when the work order's status changes with it. `completed_at` (only with complete) is the device's sign-off time: not in the future (60 s skew), not before actual_start. A job without a quote is invoiced to its customer when it completes: without a customer, complete is 422 `validation-failed` at `customer_id`. ADMIN, or a TECHNICIAN of the job's crew.
         */
        patch: operations["updateJob"];
        trace?: never;
    };
    "/v1/fsm/jobs/{job_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A job's history, oldest first: every move, crew change, time entry, material draw and change-order step, with who and when
         * @description Append-only, so dispatch stays reconstructable. Page with `next_cursor`, which is given even on the last page: resume from it to see only later entries. 404 `job-not-found` as for the job itself (a TECHNICIAN sees only the jobs of their crews).
         */
        get: operations["getJobHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/jobs/{job_id}/crew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Assign a crew to a job (ADMIN); the work order's technician follows its foreman
         * @description 409 `conflict` when the job is complete or cancelled, or a crew member is deactivated; 404 `not-found` for an unknown crew.
         */
        put: operations["assignJobCrew"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/jobs/{job_id}/time-entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log time on a job (a crew technician for themselves, ADMIN for anyone)
         * @description No overlap with another entry of the same technician (409 `conflict`), at most 16 hours, not on a complete or cancelled job (409 `conflict`).
         */
        post: operations["addTimeEntry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/jobs/{job_id}/material-draws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Draw material for a job
         * @description `sku` an active SKU of the current rate card, `quantity` a positive decimal string in its unit. Not on a complete or cancelled job (409 `conflict`).
         */
        post: operations["addMaterialDraw"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/crews": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Crews (a TECHNICIAN sees the crews they belong to)
         * @description Each crew’s name, foreman and members, by name. Pass `next_cursor` back as `cursor` while `has_more` is true.
         */
        get: operations["listCrews"];
        put?: never;
        /**
         * Make a crew (ADMIN)
         * @description A name, a foreman and member technicians, all active technicians of the tenant (422 `validation-failed` naming who is not).
         */
        post: operations["createCrew"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/crews/{crew_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a crew (ADMIN): its jobs show the change, and their technician follows the foreman
         * @description Omitted fields stay; `member_ids` replaces the members besides the foreman.
         */
        patch: operations["updateCrew"];
        trace?: never;
    };
    "/v1/fsm/jobs/{job_id}/change-orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Raise a change order, priced at once by the pricing engine
         * @description Lines in the line-item shape of POST /api/v1/quotes/calculate and optional extra labour hours (negative for work no longer needed), with a reason (10-500 characters). Priced on the rate-card revision of the job's quote at its applied margin, raised to the tenant's floor where below it (`margin.floor_engaged`); numbered per job. Money is dollars from integer cents. 409 `conflict` on a complete or cancelled job or a job without a quote; an unknown or inactive SKU is 422 `validation-failed`. Records `change_order.submitted`.
         */
        post: operations["raiseChangeOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/change-orders/{change_order_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a change order (ADMIN any method; a crew TECHNICIAN only on_device_signature)
         * @description Records `change_order.approved`; when the job's quote is approved, the payments leg invoices the delta as the workflow `change-order-invoice-<id>` (net 14, the tax lines of the quote’s region, every provider call keyed by the change order). 409 `conflict` when already decided or the job is finished.
         */
        post: operations["approveChangeOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/change-orders/{change_order_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a change order (ADMIN, or a TECHNICIAN of the crew)
         * @description Records `change_order.rejected` with `rejected_by` and `reason`. 409 `conflict` when already decided or the job is finished.
         */
        post: operations["rejectChangeOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/technicians": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Technicians with their skills, weekly hours, time off and crews
         * @description ADMIN and SALES. By name; pass `next_cursor` back as `cursor` while `has_more` is true. A technician without hours set shows the default week (Monday to Friday 08:00-17:00, 30-minute unpaid break) with `is_default: true`.
         */
        get: operations["listTechnicians"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/technicians/{technician_id}/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a technician's skills (ADMIN)
         * @description Replaces the list. Codes are lower-case, 1-40 characters: `motorisation`, `large_format`, `high_reach`, or the tenant's own (a code given here becomes one the tenant knows). A crew has the union of its members' skills.
         */
        put: operations["setTechnicianSkills"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/technicians/{technician_id}/availability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a technician's weekly hours and time off (ADMIN)
         * @description Replaces both. `weekly`: at most one entry per day, `HH:mm` local, end after start, `break_minutes` unpaid; a day without an entry is a day off. `time_off`: local dates (whole days, end inclusive) or local date-times (`YYYY-MM-DDTHH:mm`). A crew works the intersection of its members' hours.
         */
        put: operations["setTechnicianAvailability"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/sites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Sites with their coordinates
         * @description ADMIN and SALES. By name; pass `next_cursor` back as `cursor` while `has_more` is true. A site without `lat`/`lon` cannot be routed (`SITE_NOT_LOCATED`).
         */
        get: operations["listSites"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/sites/{site_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Name or locate a site (ADMIN)
         * @description WGS84 decimal degrees: `lat` -90 to 90, `lon` -180 to 180, set together (null and null un-locates it). Omitted fields stay.
         */
        patch: operations["updateSite"];
        trace?: never;
    };
    "/v1/fsm/jobs/{job_id}/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set a job's window, duration and added skills on its scheduled date (ADMIN)
         * @description Omitted fields stay; null returns a field to its default: the window is the working day, the duration the estimated hours not yet logged divided among the crew's headcount (at least 15 minutes), and the required skills are those the quote lines imply (`motorisation` for a motor, `large_format` for a line wider than 96 inches) plus those given here. A skill that is not built in and that no technician has is 422 at its path (`required_skills.N`). The job shows the result under `schedule`.
         */
        patch: operations["setJobSchedule"];
        trace?: never;
    };
    "/v1/fsm/routes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The routes of a day, and its jobs no route holds
         * @description ADMIN and SALES see every crew's route and the day's unassigned jobs (not complete or cancelled, on no route) with the reasons of the last plan, and its exclusions; a TECHNICIAN sees only the routes of their crews. Times are local to the workspace.
         */
        get: operations["listDailyRoutes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/routes/{date}/{crew_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One crew's route of a day
         * @description 404 when the crew holds no route that day (or, for a TECHNICIAN, is not one of their crews).
         */
        get: operations["getDailyRoute"];
        /**
         * Set a crew's stops by hand (ADMIN): ETAs and violations, reported, not refused
         * @description `stops` are job ids of that date, in order; each job moves to this crew (leaving any other route). The answer carries the ETAs and every violation (`TIME_WINDOW_UNREACHABLE` and `OVERTIME_CAP` with their minutes, and a constraint the crew breaks, such as SKILL_MISSING, with 0). A job not of that date is 422 at `stops.N`.
         */
        put: operations["setDailyRoute"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/routes/{date}/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Plan a day's routes (ADMIN): optimize or check, answered once the plan ends
         * @description Runs as the Temporal workflow `route-plan-<organizationId>-<date>` on the routing task queue. `optimize` assigns the day's scheduled and dispatched jobs to crews and sequences every crew's day, minimising drive time, then overtime; `keep_assignments` keeps each dispatched job with its crew; `check` computes ETAs and violations of the routes as they are (nothing stored). `dry_run` answers the plan without applying it; applying changes job crews and sequences in one transaction (with job history) and raises each changed route's `revision`. Every job no route holds is in `unassigned` with its reasons, and every job and crew that could not take it in `exclusions` (codes: SKILL_MISSING, OUTSIDE_SHIFT, ON_TIME_OFF, TIME_WINDOW_UNREACHABLE, OVERTIME_CAP, SITE_NOT_LOCATED, PLAN_ROUTE_LIMIT; docs/routes.md). A date without jobs is an empty plan. While a plan of the same date runs, a second request answers 202 with its stage. A travel-time source that fails (ROUTING_OSRM_URL) is a 502 problem naming it, with nothing applied; a workspace without a depot is 409.
         */
        post: operations["planDailyRoutes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fsm/crews/{crew_id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A crew reports its status on today's route (its technicians or ADMIN)
         * @description `status` is `en_route`, `on_site`, `on_break` or `off_duty`, set on the stop of `jobId`, or without it on the crew's current stop (the last with a reported status, else the first). Any order is allowed (on_site before en_route); `off_duty` also marks every later stop still planned. The route's revision rises and `dispatch.updated` fires with `changeReason` `technician_status`; the same report again changes nothing. Today is the workspace's date in its time zone. Another crew's technician is 403; a crew without a route today is 409; a job not on the route is 422 at `jobId`.
         */
        post: operations["setCrewStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/graphql": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * GraphiQL (outside production), every asset served by this deployment
         * @description An in-browser GraphQL IDE; sign in from its bar, or put a bearer token in its Headers tab. Not served in production (there this path is 401 like any /v1/ path without a token).
         */
        get: operations["getGraphiql"];
        put?: never;
        /**
         * GraphQL over quotes, work orders and customers, each query costed and drawn from the plan
         * @description GraphQL over HTTP (`application/json` or `application/graphql-response+json`). The schema is `/v1/graphql/schema.graphql`; docs/graphql.md explains cost and limits. Every answer carries `extensions.cost` (requested and actual points, and the bucket). Refusals are GraphQL errors with `extensions.code`: `GRAPHQL_PARSE_FAILED`, `GRAPHQL_VALIDATION_FAILED`, `MAX_DEPTH_EXCEEDED`, `MAX_ALIASES_EXCEEDED`, `MAX_ROOT_FIELDS_EXCEEDED`, `MAX_COST_EXCEEDED`, `VARIABLES_TOO_LARGE`, `BATCHING_NOT_SUPPORTED`, `BAD_USER_INPUT`, `THROTTLED`; resolver errors `FORBIDDEN`, `NOT_FOUND`, `CONFLICT`, …; `SERVICE_UNAVAILABLE` with status 503 and `Retry-After` while the database cannot be reached.
         */
        post: operations["graphql"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/graphql/schema.graphql": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The GraphQL schema as SDL
         * @description The schema POST /v1/graphql serves, printed by graphql-js (for code generators and review).
         */
        get: operations["getGraphqlSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "quote.approved": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * quote.approved: A quote was approved
         * @description Sent after POST /api/v1/quotes/{id}/approve commits; not again for a repeated approval (409). POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.
         */
        post: operations["quoteApprovedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "work_order.dispatched": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * work_order.dispatched: A work order was dispatched
         * @description Sent when PATCH /api/v1/work-orders/{id}/status moves a work order to DISPATCHED. POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.
         */
        post: operations["workOrderDispatchedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "work_order.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * work_order.completed: A work order was completed
         * @description Sent when a DISPATCHED work order moves to COMPLETED; `changed_at` is the server’s completion time. POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.
         */
        post: operations["workOrderCompletedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "work_order.pending": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * work_order.pending: A work order went back to PENDING
         * @description Sent when a DISPATCHED work order moves back to PENDING. POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.
         */
        post: operations["workOrderPendingEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "work_order.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * work_order.cancelled: A work order was cancelled
         * @description Sent when a PENDING or DISPATCHED work order moves to CANCELLED. POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.
         */
        post: operations["workOrderCancelledEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "pricebook.published": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * pricebook.published: A price book revision became current
         * @description Sent when a revision published by POST /v1/pricebooks/{id}/revisions or an import becomes current: at once, or at its future `effective_from` (a Temporal timer announces it; quotes priced from that instant use it whether or not the announcement has gone out). POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.
         */
        post: operations["pricebookPublishedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "dispatch.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * dispatch.updated: A crew’s day changed
         * @description Sent per route that changed, after the commit: a plan applied (POST /v1/fsm/routes/{date}/plan) or a hand sequence (PUT /v1/fsm/routes/{date}/{crewId}) that moved a job between crews (`reassignment`, both routes) or reordered a route (`resequencing`), or moved its arrival times (`eta_drift`). `previousAttributes` holds the prior values of exactly what changed; `revision` increases with every change of the route, so a receiver drops an event whose revision it has passed. A repeated trigger that changes nothing sends nothing. Versions before 2026-01-20 name the foreman `technicianId`. POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.
         */
        post: operations["dispatchUpdatedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:job.dispatched": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * job.dispatched (field format): A job was dispatched
         * @description Sent when a job moves to dispatched: PATCH /v1/fsm/jobs/{job_id} (its crew assigned), or PATCH /api/v1/work-orders/{id}/status to DISPATCHED. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldJobDispatchedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:job.status_changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * job.status_changed (field format): A job changed status
         * @description Sent on every status change of a job, through /v1/fsm or /api/, with `from` and `to`; a PATCH that changes nothing sends nothing. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldJobStatusChangedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:job.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * job.completed (field format): A job was completed
         * @description Sent at the final sign-off (status complete), with the hours logged against the hours estimated. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldJobCompletedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:change_order.submitted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * change_order.submitted (field format): A change order was raised
         * @description Sent when POST /v1/fsm/jobs/{job_id}/change-orders raises a change order, before its approval. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldChangeOrderSubmittedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:change_order.approved": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * change_order.approved (field format): A change order was approved
         * @description Sent when POST /v1/fsm/change-orders/{change_order_id}/approve approves a change order in the field; `invoice` says whether the payments leg invoices it. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldChangeOrderApprovedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:change_order.rejected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * change_order.rejected (field format): A change order was rejected
         * @description Sent when POST /v1/fsm/change-orders/{change_order_id}/reject declines a change order, with `rejected_by` and `reason`. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldChangeOrderRejectedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:quote.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * quote.created (field format): A quote was created
         * @description Sent when a calculated quote, or a new revision of one, is persisted: POST /api/v1/quotes/calculate with persist, POST /v1/quotes and its revisions. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldQuoteCreatedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:invoice.generated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * invoice.generated (field format): An invoice was generated
         * @description Sent when the payments leg finalises an invoice: for an approved quote (at approval, or by POST /api/v1/quotes/{id}/invoice), or for an approved change order of its job. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldInvoiceGeneratedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "field:dispatch.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * dispatch.updated (field format): A crew’s day changed
         * @description Sent per route that changed, after the commit: a plan applied (POST /v1/fsm/routes/{date}/plan) or a hand sequence (PUT /v1/fsm/routes/{date}/{crewId}) that moved a job between crews (`reassignment`, both routes) or reordered a route (`resequencing`), or moved its arrival times (`eta_drift`). `previousAttributes` holds the prior values of exactly what changed; `revision` increases with every change of the route, so a receiver drops an event whose revision it has passed. A repeated trigger that changes nothing sends nothing. Versions before 2026-01-20 name the foreman `technicianId`. Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. Delivery is at least once: de-duplicate on `X-Service-Event-Id`.
         */
        post: operations["fieldDispatchUpdatedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "events:quote.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * quote.created (events format): A quote was created
         * @description Sent when a calculated quote, or a new revision of one, is persisted: POST /api/v1/quotes/calculate with persist, POST /v1/quotes and its revisions. Events format: the same data as `data.object`, POSTed to each enabled events endpoint subscribed to it, signed with the endpoint secret (`Service-Signature`). Answer 2xx within 300 seconds; anything else is retried, 8 attempts over 24 hours; an endpoint failing every attempt for 72 hours is disabled and replays what it missed when re-enabled. Delivery is at least once: de-duplicate on `id`.
         */
        post: operations["eventsQuoteCreatedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "events:invoice.generated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * invoice.generated (events format): An invoice was generated
         * @description Sent when the payments leg finalises an invoice: for an approved quote (at approval, or by POST /api/v1/quotes/{id}/invoice), or for an approved change order of its job. Events format: the same data as `data.object`, POSTed to each enabled events endpoint subscribed to it, signed with the endpoint secret (`Service-Signature`). Answer 2xx within 300 seconds; anything else is retried, 8 attempts over 24 hours; an endpoint failing every attempt for 72 hours is disabled and replays what it missed when re-enabled. Delivery is at least once: de-duplicate on `id`.
         */
        post: operations["eventsInvoiceGeneratedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "events:pricebook.published": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * pricebook.published (events format): A price book revision became current
         * @description Sent when a revision published by POST /v1/pricebooks/{id}/revisions or an import becomes current: at once, or at its future `effective_from` (a Temporal timer announces it; quotes priced from that instant use it whether or not the announcement has gone out). Events format: the same data as `data.object`, POSTed to each enabled events endpoint subscribed to it, signed with the endpoint secret (`Service-Signature`). Answer 2xx within 300 seconds; anything else is retried, 8 attempts over 24 hours; an endpoint failing every attempt for 72 hours is disabled and replays what it missed when re-enabled. Delivery is at least once: de-duplicate on `id`.
         */
        post: operations["eventsPricebookPublishedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "events:dispatch.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * dispatch.updated (events format): A crew’s day changed
         * @description Sent per route that changed, after the commit: a plan applied (POST /v1/fsm/routes/{date}/plan) or a hand sequence (PUT /v1/fsm/routes/{date}/{crewId}) that moved a job between crews (`reassignment`, both routes) or reordered a route (`resequencing`), or moved its arrival times (`eta_drift`). `previousAttributes` holds the prior values of exactly what changed; `revision` increases with every change of the route, so a receiver drops an event whose revision it has passed. A repeated trigger that changes nothing sends nothing. Versions before 2026-01-20 name the foreman `technicianId`. Events format: the same data as `data.object`, POSTed to each enabled events endpoint subscribed to it, signed with the endpoint secret (`Service-Signature`). Answer 2xx within 300 seconds; anything else is retried, 8 attempts over 24 hours; an endpoint failing every attempt for 72 hours is disabled and replays what it missed when re-enabled. Delivery is at least once: de-duplicate on `id`.
         */
        post: operations["eventsDispatchUpdatedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        QuoteApprovedEvent: {
            /** @enum {string} */
            event: "quote.approved";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)
             */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            data: {
                /** Format: uuid */
                quote_id: string;
                quote_number: number;
                /** @enum {string} */
                status: "APPROVED";
                total_amount_cents: number;
                total_cost_cents: number;
                /** @description A fraction: "0.4000" is 40 % */
                margin_percent: string;
                /** @description null when the quote names no customer */
                customer_name: string | null;
                /** @description null when the quote’s customer has no email */
                customer_email: string | null;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                approved_at: string;
                /** Format: uuid */
                approved_by_user_id: string;
            };
        };
        WorkOrderDispatchedEvent: {
            /** @enum {string} */
            event: "work_order.dispatched";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)
             */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            data: {
                /** Format: uuid */
                work_order_id: string;
                /** @enum {string} */
                status: "DISPATCHED";
                /** Format: uuid */
                quote_id: string | null;
                /** Format: uuid */
                assigned_technician_id: string | null;
                /** Format: uuid */
                changed_by_user_id: string;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                changed_at: string;
            };
        };
        WorkOrderCompletedEvent: {
            /** @enum {string} */
            event: "work_order.completed";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)
             */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            data: {
                /** Format: uuid */
                work_order_id: string;
                /** @enum {string} */
                status: "COMPLETED";
                /** Format: uuid */
                quote_id: string | null;
                /** Format: uuid */
                assigned_technician_id: string | null;
                /** Format: uuid */
                changed_by_user_id: string;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                changed_at: string;
            };
        };
        WorkOrderPendingEvent: {
            /** @enum {string} */
            event: "work_order.pending";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)
             */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            data: {
                /** Format: uuid */
                work_order_id: string;
                /** @enum {string} */
                status: "PENDING";
                /** Format: uuid */
                quote_id: string | null;
                /** Format: uuid */
                assigned_technician_id: string | null;
                /** Format: uuid */
                changed_by_user_id: string;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                changed_at: string;
            };
        };
        WorkOrderCancelledEvent: {
            /** @enum {string} */
            event: "work_order.cancelled";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)
             */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            data: {
                /** Format: uuid */
                work_order_id: string;
                /** @enum {string} */
                status: "CANCELLED";
                /** Format: uuid */
                quote_id: string | null;
                /** Format: uuid */
                assigned_technician_id: string | null;
                /** Format: uuid */
                changed_by_user_id: string;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                changed_at: string;
            };
        };
        PricebookPublishedEvent: {
            /** @enum {string} */
            event: "pricebook.published";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)
             */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            data: {
                /**
                 * Format: uuid
                 * @description The price book (GET /v1/pricebooks/{id})
                 */
                pricebook_id: string;
                /**
                 * Format: date-time
                 * @description The revision that became current (a quote’s `pricebookRevision`)
                 */
                revision: string;
                /**
                 * Format: date-time
                 * @description When it became current
                 */
                effective_from: string;
                /**
                 * Format: uuid
                 * @description The ADMIN who published it
                 */
                published_by_user_id: string | null;
            };
        };
        DispatchUpdatedEvent: {
            /** @enum {string} */
            event: "dispatch.updated";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)
             */
            id: string;
            /** Format: uuid */
            organization_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            data: {
                /**
                 * Format: uuid
                 * @description The route (GET /v1/fsm/routes/{date}/{crewId})
                 */
                id: string;
                /** Format: date */
                date: string;
                /**
                 * Format: uuid
                 * @description The crew’s foreman (`technicianId` for versions before 2026-01-20)
                 */
                assigneeId: string;
                totalDriveMinutes: number;
                overtimeMinutes: number;
                stops: {
                    sequence: number;
                    /** Format: uuid */
                    jobId: string;
                    /** @description The arrival, local to the tenant’s time zone (`YYYY-MM-DDTHH:mm`) */
                    etaLocal: string;
                    /** @enum {string} */
                    status: "planned" | "en_route" | "on_site" | "on_break" | "off_duty";
                }[];
                /** @enum {string} */
                changeReason: "reassignment" | "resequencing" | "eta_drift" | "technician_status";
                /** @description The route’s revision: it increases with every change of the route, so a receiver drops an event older than one it has seen */
                revision: number;
                /** @description The prior values of exactly the attributes that changed; always sent by this service (the `events` format sends it as data.previousAttributes, beside the object) */
                previousAttributes?: {
                    /**
                     * Format: uuid
                     * @description The crew’s foreman (`technicianId` for versions before 2026-01-20)
                     */
                    assigneeId?: string;
                    totalDriveMinutes?: number;
                    overtimeMinutes?: number;
                    stops?: {
                        sequence: number;
                        /** Format: uuid */
                        jobId: string;
                        /** @description The arrival, local to the tenant’s time zone (`YYYY-MM-DDTHH:mm`) */
                        etaLocal: string;
                        /** @enum {string} */
                        status: "planned" | "en_route" | "on_site" | "on_break" | "off_duty";
                    }[];
                };
            };
        };
        FieldJobDispatchedEvent: {
            /** @enum {string} */
            event: "job.dispatched";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["JobDispatchedData"];
        };
        JobDispatchedData: {
            /** Format: uuid */
            job_id: string;
            /**
             * Format: uuid
             * @description null when the job was dispatched through /api/ without a crew
             */
            crew_id: string | null;
            /** Format: uuid */
            assigned_technician_id: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            dispatched_at: string;
        };
        FieldJobStatusChangedEvent: {
            /** @enum {string} */
            event: "job.status_changed";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["JobStatusChangedData"];
        };
        JobStatusChangedData: {
            /** Format: uuid */
            job_id: string;
            /** @enum {string} */
            from: "scheduled" | "dispatched" | "in_progress" | "on_hold" | "complete" | "cancelled";
            /** @enum {string} */
            to: "scheduled" | "dispatched" | "in_progress" | "on_hold" | "complete" | "cancelled";
            /** Format: uuid */
            changed_by_user_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            changed_at: string;
        };
        FieldJobCompletedEvent: {
            /** @enum {string} */
            event: "job.completed";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["JobCompletedData"];
        };
        JobCompletedData: {
            /** Format: uuid */
            job_id: string;
            /** @description Hours of the job’s time entries, two decimals */
            hours_logged: number;
            /** @description Labour hours of the quote’s lines and approved change orders, two decimals */
            hours_estimated: number;
            /**
             * Format: date-time
             * @description The device’s sign-off time when one was sent, the server’s otherwise
             */
            completed_at: string;
        };
        FieldChangeOrderSubmittedEvent: {
            /** @enum {string} */
            event: "change_order.submitted";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["ChangeOrderSubmittedData"];
        };
        ChangeOrderSubmittedData: {
            /** Format: uuid */
            change_order_id: string;
            /** Format: uuid */
            job_id: string;
            /** @description The quote’s proposal reference `Q-<quote number>`; null without a quote */
            quote_ref: string | null;
            sequence: number;
            reason: string;
            /** Format: uuid */
            raised_by_user_id: string;
            delta: {
                labour_hours: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                material_cost: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                direct_cost: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                sell: number;
                /** @enum {string} */
                currency: "CAD";
            };
            revised_contract_value: {
                /** @description Dollars, at most two decimals, computed from integer cents */
                previous: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                current: number;
                /** @enum {string} */
                currency: "CAD";
            };
            margin: {
                applied: number;
                floor_engaged: boolean;
            };
        };
        FieldChangeOrderApprovedEvent: {
            /** @enum {string} */
            event: "change_order.approved";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["ChangeOrderApprovedData"];
        };
        ChangeOrderApprovedData: {
            /** Format: uuid */
            change_order_id: string;
            /** Format: uuid */
            job_id: string;
            /** @description The quote’s proposal reference `Q-<quote number>`; null without a quote */
            quote_ref: string | null;
            sequence: number;
            reason: string;
            approved_by: {
                name: string;
                role: string;
                method: string;
            };
            delta: {
                labour_hours: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                material_cost: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                direct_cost: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                sell: number;
                /** @enum {string} */
                currency: "CAD";
            };
            revised_contract_value: {
                /** @description Dollars, at most two decimals, computed from integer cents */
                previous: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                current: number;
                /** @enum {string} */
                currency: "CAD";
            };
            margin: {
                applied: number;
                floor_engaged: boolean;
            };
            /** Format: uuid */
            quote_id: string | null;
            /** @description Whether the payments leg runs: the quote is approved and the price changes (an invoice for more, a credit note for less) */
            invoice: boolean;
        };
        FieldChangeOrderRejectedEvent: {
            /** @enum {string} */
            event: "change_order.rejected";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["ChangeOrderRejectedData"];
        };
        ChangeOrderRejectedData: {
            /** Format: uuid */
            change_order_id: string;
            /** Format: uuid */
            job_id: string;
            /** @description The quote’s proposal reference `Q-<quote number>`; null without a quote */
            quote_ref: string | null;
            sequence: number;
            rejected_by: {
                name: string;
                role: string;
            };
            reason: string;
        };
        FieldQuoteCreatedEvent: {
            /** @enum {string} */
            event: "quote.created";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["QuoteCreatedData"];
        };
        QuoteCreatedData: {
            /** Format: uuid */
            id: string;
            /** @description The proposal reference `Q-<quote number>` */
            reference: string;
            revision: number;
            /** @enum {string} */
            status: "draft" | "sent" | "approved" | "rejected" | "expired";
            /** Format: uuid */
            customerId: string | null;
            /** Format: uuid */
            ownerId: string;
            /** @enum {string} */
            currency: "CAD";
            totals: {
                /** @description Dollars, at most two decimals, computed from integer cents */
                subtotal: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                taxTotal: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                grandTotal: number;
                /** @description The margin in percent, two decimals */
                marginPct: number;
                /** @enum {string} */
                currency: "CAD";
            };
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            pricebookRevision: string;
            approval: {
                /** @description Whether the price is below the tenant’s margin floor and needed an ADMIN’s override */
                required: boolean;
                reason: string | null;
            };
        };
        FieldInvoiceGeneratedEvent: {
            /** @enum {string} */
            event: "invoice.generated";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["InvoiceGeneratedData"];
        };
        InvoiceGeneratedData: {
            /** @description The payments provider’s invoice id */
            id: string;
            /** @description The quote’s proposal reference `Q-<quote number>`, or `J-<job id>` for a job without a quote */
            reference: string;
            /**
             * @description What produced the invoice: the quote’s approval, a change order, or a completed job (its quote’s invoice reconciled, the draws beyond it, or a job without a quote billed for time and materials)
             * @enum {string}
             */
            sourceType: "quote" | "change_order" | "job";
            /** Format: uuid */
            sourceId: string;
            /**
             * Format: uuid
             * @description Null for a job without a quote
             */
            quoteId: string | null;
            /** Format: uuid */
            customerId: string | null;
            /** @enum {string} */
            currency: "CAD";
            /** @enum {string} */
            status: "open";
            totals: {
                /** @description Dollars, at most two decimals, computed from integer cents */
                subtotal: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                taxTotal: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                grandTotal: number;
                /** @enum {string} */
                currency: "CAD";
            };
            taxLines: {
                code: string;
                /** @description A fraction: 0.13 is 13 % */
                rate: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                amount: number;
            }[];
            partsConsumed: {
                sku: string;
                /** @description Exact decimal as a string */
                quantity: string;
                vanId: string | null;
            }[];
            erpSync: {
                /** @enum {string} */
                target: "accounting";
                /** @description The accounting leg’s status in lower case (pending, succeeded, failed, skipped); not_applicable for an invoice accounting never receives (a change order’s, a completed job’s) */
                status: string;
            };
            /** @description On a later revision of the event only: the erpSync it corrects (the `events` format sends it as data.previousAttributes) */
            previousAttributes?: {
                erpSync: {
                    /** @enum {string} */
                    target: "accounting";
                    /** @description The accounting leg’s status in lower case (pending, succeeded, failed, skipped); not_applicable for an invoice accounting never receives (a change order’s, a completed job’s) */
                    status: string;
                };
            };
        };
        FieldDispatchUpdatedEvent: {
            /** @enum {string} */
            event: "dispatch.updated";
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)
             */
            event_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            occurred_at: string;
            data: components["schemas"]["DispatchUpdatedData"];
        };
        DispatchUpdatedData: {
            /**
             * Format: uuid
             * @description The route (GET /v1/fsm/routes/{date}/{crewId})
             */
            id: string;
            /** Format: date */
            date: string;
            /**
             * Format: uuid
             * @description The crew’s foreman (`technicianId` for versions before 2026-01-20)
             */
            assigneeId: string;
            totalDriveMinutes: number;
            overtimeMinutes: number;
            stops: {
                sequence: number;
                /** Format: uuid */
                jobId: string;
                /** @description The arrival, local to the tenant’s time zone (`YYYY-MM-DDTHH:mm`) */
                etaLocal: string;
                /** @enum {string} */
                status: "planned" | "en_route" | "on_site" | "on_break" | "off_duty";
            }[];
            /** @enum {string} */
            changeReason: "reassignment" | "resequencing" | "eta_drift" | "technician_status";
            /** @description The route’s revision: it increases with every change of the route, so a receiver drops an event older than one it has seen */
            revision: number;
            /** @description The prior values of exactly the attributes that changed; always sent by this service (the `events` format sends it as data.previousAttributes, beside the object) */
            previousAttributes?: {
                /**
                 * Format: uuid
                 * @description The crew’s foreman (`technicianId` for versions before 2026-01-20)
                 */
                assigneeId?: string;
                totalDriveMinutes?: number;
                overtimeMinutes?: number;
                stops?: {
                    sequence: number;
                    /** Format: uuid */
                    jobId: string;
                    /** @description The arrival, local to the tenant’s time zone (`YYYY-MM-DDTHH:mm`) */
                    etaLocal: string;
                    /** @enum {string} */
                    status: "planned" | "en_route" | "on_site" | "on_break" | "off_duty";
                }[];
            };
        };
        EventsQuoteCreatedEvent: {
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it
             */
            id: string;
            /** @enum {string} */
            type: "quote.created";
            /** @description The version the endpoint pinned at registration */
            apiVersion: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            createdAt: string;
            /** @description false for an event of a sandbox workspace */
            livemode: boolean;
            data: {
                object: components["schemas"]["QuoteCreatedData"];
                /** @description The changed attributes' prior values; null for events that describe no change */
                previousAttributes: {
                    [key: string]: unknown;
                } | null;
            };
        };
        EventsInvoiceGeneratedEvent: {
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it
             */
            id: string;
            /** @enum {string} */
            type: "invoice.generated";
            /** @description The version the endpoint pinned at registration */
            apiVersion: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            createdAt: string;
            /** @description false for an event of a sandbox workspace */
            livemode: boolean;
            data: {
                object: components["schemas"]["InvoiceGeneratedData"];
                /** @description The changed attributes' prior values; null for events that describe no change */
                previousAttributes: {
                    [key: string]: unknown;
                } | null;
            };
        };
        EventsPricebookPublishedEvent: {
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it
             */
            id: string;
            /** @enum {string} */
            type: "pricebook.published";
            /** @description The version the endpoint pinned at registration */
            apiVersion: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            createdAt: string;
            /** @description false for an event of a sandbox workspace */
            livemode: boolean;
            data: {
                object: components["schemas"]["PricebookPublishedData"];
                /** @description The changed attributes' prior values; null for events that describe no change */
                previousAttributes: {
                    [key: string]: unknown;
                } | null;
            };
        };
        PricebookPublishedData: {
            /**
             * Format: uuid
             * @description The price book (GET /v1/pricebooks/{id})
             */
            pricebook_id: string;
            /**
             * Format: date-time
             * @description The revision that became current (a quote’s `pricebookRevision`)
             */
            revision: string;
            /**
             * Format: date-time
             * @description When it became current
             */
            effective_from: string;
            /**
             * Format: uuid
             * @description The ADMIN who published it
             */
            published_by_user_id: string | null;
        };
        EventsDispatchUpdatedEvent: {
            /**
             * Format: uuid
             * @description Stable across retries and replays: de-duplicate on it
             */
            id: string;
            /** @enum {string} */
            type: "dispatch.updated";
            /** @description The version the endpoint pinned at registration */
            apiVersion: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            createdAt: string;
            /** @description false for an event of a sandbox workspace */
            livemode: boolean;
            data: {
                object: components["schemas"]["DispatchUpdatedData"];
                /** @description The changed attributes' prior values; null for events that describe no change */
                previousAttributes: {
                    [key: string]: unknown;
                } | null;
            };
        };
        Health: {
            /** @enum {string} */
            status: "ok" | "degraded";
            /** @enum {string} */
            database: "reachable" | "unreachable";
            /** @description Present only when status is ok */
            latency_ms?: number;
            build: {
                commit: string | null;
                ref: string | null;
                environment: string | null;
            };
            timestamp: string;
        };
        Error: {
            error: {
                /** @enum {string} */
                code: "bad_request" | "validation_failed" | "unauthenticated" | "invalid_credentials" | "forbidden" | "not_found" | "conflict" | "rate_limited" | "provider_error" | "internal_error";
                message: string;
                /** @description On 422 only: first complaint per dotted field path. null on most other errors; absent on a router 404. */
                details?: {
                    fields: {
                        [key: string]: string;
                    };
                } | null;
                request_id: string | null;
            };
        };
        VersionList: {
            current: string;
            data: {
                /** @description YYYY-MM-DD, the value of Service-Version */
                version: string;
                current: boolean;
                /** @description The row of the published changelog for this version */
                changelog: string;
                /** @description What this service changes in an answer to a request pinned to this version (or why nothing) */
                changes: string[];
                /** @description Twelve months after the next version’s release; null for the current version */
                supported_until: string | null;
                retired: boolean;
                /** @description When it stopped being served, once announced (never before supported_until) */
                retired_on: string | null;
            }[];
        };
        RouteTable: {
            count: number;
            routes: {
                /** @enum {string} */
                method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
                path: string;
            }[];
        };
        OpenApiDocument: {
            /** @enum {string} */
            openapi: "3.1.0";
            info: {
                title: string;
                version: string;
            } & {
                [key: string]: unknown;
            };
            paths: {
                [key: string]: {
                    [key: string]: unknown;
                };
            };
        } & {
            [key: string]: unknown;
        };
        ConnectorStatus: {
            count: number;
            connectors: {
                /** @enum {string} */
                slug: "payments" | "accounting" | "crm";
                display_name: string;
                platform_ready: boolean;
                /** @enum {string} */
                readiness: "operator_credentials_missing" | "awaiting_tenant_consent" | "platform_account_live";
                summary: string;
            }[];
        };
        LoginResult: {
            access_token: string;
            /** @enum {string} */
            token_type: "Bearer";
            expires_in: number;
            user: {
                /** Format: uuid */
                id: string;
                /** Format: email */
                email: string;
                /** @enum {string} */
                role: "ADMIN" | "SALES" | "TECHNICIAN";
                /** Format: uuid */
                organization_id: string;
            };
        };
        Profile: {
            /** Format: uuid */
            id: string;
            email: string;
            full_name: string;
            /** @enum {string} */
            role: "ADMIN" | "SALES" | "TECHNICIAN";
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            last_login_at: string | null;
            organization: {
                /** Format: uuid */
                id: string;
                name: string;
                subdomain: string;
            };
        };
        TeamUserList: {
            data: components["schemas"]["TeamUser"][];
        };
        TeamUser: {
            /** Format: uuid */
            id: string;
            email: string;
            full_name: string;
            /** @enum {string} */
            role: "ADMIN" | "SALES" | "TECHNICIAN";
            /** @enum {string} */
            status: "active" | "invited" | "deactivated";
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            last_login_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
        };
        Invitation: {
            /** Format: uuid */
            id: string;
            email: string;
            full_name: string;
            /** @enum {string} */
            role: "ADMIN" | "SALES" | "TECHNICIAN";
            /** @enum {string} */
            status: "invited";
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            invitation_expires_at: string;
        };
        UpdatedTeamUser: {
            /** Format: uuid */
            id: string;
            email: string;
            full_name: string;
            /** @enum {string} */
            role: "ADMIN" | "SALES" | "TECHNICIAN";
            /** @enum {string} */
            status: "active" | "invited" | "deactivated";
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            last_login_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            /** @description The open jobs of the crews a technician left (deactivated, or no longer a TECHNICIAN); empty otherwise. */
            affected_jobs: components["schemas"]["AffectedJob"][];
        };
        AffectedJob: {
            /** Format: uuid */
            job_id: string;
            /** Format: uuid */
            crew_id: string;
            status: string;
            scheduled_date: string | null;
        };
        PasswordResetAccepted: {
            /** @enum {boolean} */
            accepted: true;
        };
        QuotePage: {
            data: components["schemas"]["QuoteSummary"][];
            /** Format: uuid */
            next_cursor: string | null;
        };
        QuoteSummary: {
            /** Format: uuid */
            id: string;
            quote_number: number;
            /** @enum {string} */
            status: "DRAFT" | "SENT" | "APPROVED" | "REJECTED" | "EXPIRED";
            total_amount_cents: number;
            /** @description Exact decimal as a string */
            margin_percent: string;
            customer_name: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            created_by: {
                /** Format: uuid */
                id: string;
                name: string;
                email: string;
            } | null;
        };
        QuoteDetail: {
            /** Format: uuid */
            id: string;
            quote_number: number;
            /** @enum {string} */
            status: "DRAFT" | "SENT" | "APPROVED" | "REJECTED" | "EXPIRED";
            total_amount_cents: number;
            /** @description Exact decimal as a string */
            margin_percent: string;
            customer_name: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            created_by: {
                /** Format: uuid */
                id: string;
                name: string;
                email: string;
            } | null;
            customer_email: string | null;
            /** @description Why an ADMIN priced it below the margin floor; null otherwise */
            override_reason: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            sent_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            approved_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            rejected_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            expired_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            paid_at: string | null;
            /** @description The customer's acceptance on the quote's page; null unless they accepted there */
            acceptance: {
                /** @description The name the customer typed to accept */
                name: string;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                accepted_at: string;
                /** @description The address the acceptance came from */
                client_address: string;
                user_agent: string | null;
            } | null;
            /** @description The customer's decline on the quote's page, with their reason if they gave one; null otherwise */
            customer_decline: {
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                declined_at: string;
                reason: string | null;
            } | null;
            lines: {
                position: number;
                reference: string | null;
                width_inches: number;
                drop_inches: number;
                quantity: number;
                fabric_sku_code: string;
                hardware_sku_code: string;
                motor_sku_code: string | null;
                trim_sku_code: string | null;
                cost_cents: number;
                price_cents: number;
            }[];
            calculation: components["schemas"]["CalculationResult"];
        };
        CalculationResult: {
            /** @enum {string} */
            currency: "CAD";
            labor_tier: {
                code: string;
                name: string;
                hourly_rate_cents: number;
                /** @description Exact decimal as a string */
                multiplier: string;
            };
            /** @description Exact decimal as a string */
            margin_floor: string;
            /** @description Exact decimal as a string */
            applied_margin: string;
            floor_overridden: boolean;
            /**
             * @deprecated
             * @description Deprecated alias of applied_margin
             */
            target_margin: string;
            line_items: {
                reference: string | null;
                width_inches: number;
                drop_inches: number;
                quantity: number;
                /** @description Exact decimal as a string */
                opening_square_feet: string;
                /** @description Exact decimal as a string */
                fabric_square_feet_with_waste: string;
                /** @description Exact decimal as a string */
                labour_hours: string;
                cut_list: {
                    /** @description Exact decimal as a string */
                    tube_length_inches: string;
                    /** @description Exact decimal as a string */
                    hembar_length_inches: string;
                    /** @description Exact decimal as a string */
                    fabric_width_inches: string;
                    /** @description Exact decimal as a string */
                    fabric_drop_inches: string;
                    /** @description Exact decimal as a string */
                    fabric_square_feet: string;
                };
                components: {
                    /** @enum {string} */
                    component: "fabric" | "hardware" | "motor" | "trim" | "labour";
                    sku_code: string | null;
                    description: string;
                    /** @description Exact decimal as a string */
                    quantity: string;
                    unit: string;
                    /** @description Exact decimal as a string */
                    unit_cost_cents: string;
                    extended_cost_cents: number;
                }[];
                cost_cents: number;
                price_cents: number;
            }[];
            totals: {
                cost_cents: number;
                amount_cents: number;
                profit_cents: number;
                /** @description Exact decimal as a string */
                margin_percent: string;
            };
            assumptions: {
                /** @description Exact decimal as a string */
                fabric_waste_factor: string;
                /** @description Exact decimal as a string */
                labour_base_hours_per_unit: string;
                /** @description Exact decimal as a string */
                labour_hours_per_square_foot: string;
                /** @description Exact decimal as a string */
                labour_motorisation_hours: string;
            };
            /** Format: uuid */
            quote_id: string | null;
            quote_number: number | null;
            /** @enum {string|null} */
            status: "DRAFT" | "SENT" | "APPROVED" | "REJECTED" | "EXPIRED" | null;
            persisted: boolean;
        };
        ApprovedQuote: {
            /** Format: uuid */
            id: string;
            quote_number: number;
            /** @enum {string} */
            status: "DRAFT" | "SENT" | "APPROVED" | "REJECTED" | "EXPIRED";
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            approved_at: string | null;
        };
        SentQuote: {
            /** Format: uuid */
            id: string;
            quote_number: number;
            /** @enum {string} */
            status: "DRAFT" | "SENT" | "APPROVED" | "REJECTED" | "EXPIRED";
            total_amount_cents: number;
            /** @description Exact decimal as a string */
            margin_percent: string;
            customer_name: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            created_by: {
                /** Format: uuid */
                id: string;
                name: string;
                email: string;
            } | null;
            /**
             * Format: uri
             * @description The quote's page for the customer, `<PUBLIC_BASE_URL>/q/<token>`; a new send voids it
             */
            page_url: string;
        };
        V1Quote: {
            /** Format: uuid */
            id: string;
            /** @description The proposal reference, Q-<quote number> */
            reference: string;
            /** @enum {string} */
            status: "draft" | "sent" | "approved" | "rejected" | "expired";
            revision: number;
            /** @enum {string} */
            currency: "CAD";
            /**
             * Format: uuid
             * @description null only for a quote priced through /api/v1/quotes/calculate without a customer
             */
            customerId: string | null;
            taxRegion: string;
            /** Format: uuid */
            pricebookId: string;
            /**
             * Format: date-time
             * @description The rate-card revision that priced it (absent before version 2026-04-15)
             */
            pricebookRevision: string;
            totals: {
                /** @description Dollars, at most two decimals, computed from integer cents */
                subtotal: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                taxTotal: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                grandTotal: number;
                /** @description Percent, two decimals */
                marginPct: number;
                /** @enum {string} */
                currency: "CAD";
            };
            taxLines: {
                /** @enum {string} */
                code: "GST" | "HST" | "PST" | "QST";
                rate: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                amount: number;
            }[];
            lines: {
                /** @description The catalogue product; null on a line priced through /api/v1/quotes/calculate, which names component SKUs instead */
                sku: string | null;
                quantity: number;
                /** @description extendedPrice / quantity, half-up to the cent; extendedPrice is what the quote sums */
                unitPrice: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                extendedPrice: number;
                cutList: {
                    tubeIn: number;
                    hembarIn: number;
                    fabricIn: number;
                };
                /** @description Inches the tube is cut shorter than the finished width (an object before version 2026-07-01) */
                deduction: number;
                marginPct: number;
                configuration: {
                    finishedWidthIn: number;
                    finishedHeightIn: number;
                    /**
                     * @description null on a line priced through /api/v1/quotes/calculate, which does not record it
                     * @enum {string|null}
                     */
                    controlSide: "left" | "right" | null;
                    motorised: boolean;
                    motorSku: string | null;
                };
            }[];
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            createdAt: string;
        };
        /** @description RFC 9457 problem details. */
        Problem: {
            /** @enum {string} */
            type: "unauthenticated" | "forbidden" | "job-not-found" | "not-found" | "invalid-transition" | "validation-failed" | "conflict" | "rate-limited" | "idempotency-key-reused" | "idempotency-key-in-use" | "internal-error";
            title: string;
            status: number;
            detail: string;
            request_id: string | null;
            /** @description validation-failed only: the first complaint per dotted path. */
            errors?: {
                [key: string]: string;
            };
        };
        V1QuotePage: {
            data: components["schemas"]["V1Quote"][];
            /** @description Opaque: pass it back as `cursor` for the next page; null on the last page */
            next_cursor: string | null;
            /** @description Whether another page follows */
            has_more: boolean;
        };
        V1ProductPage: {
            data: components["schemas"]["V1Product"][];
            /** @description Opaque: pass it back as `cursor` for the next page; null on the last page */
            next_cursor: string | null;
            /** @description Whether another page follows */
            has_more: boolean;
        };
        V1Product: {
            /** Format: uuid */
            id: string;
            sku: string;
            name: string;
            components: {
                fabricSku: string;
                hardwareSku: string;
                trimSku: string | null;
            };
        };
        V1CustomerPage: {
            data: components["schemas"]["V1Customer"][];
            /** @description Opaque: pass it back as `cursor` for the next page; null on the last page */
            next_cursor: string | null;
            /** @description Whether another page follows */
            has_more: boolean;
        };
        V1Customer: {
            /** Format: uuid */
            id: string;
            name: string;
            email: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            createdAt: string;
        };
        V1PricebookList: {
            data: components["schemas"]["V1Pricebook"][];
        };
        V1Pricebook: {
            /** Format: uuid */
            id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            revision: string;
            /** @enum {string} */
            currency: "CAD";
        };
        PricebookRevision: {
            /**
             * Format: uuid
             * @description The price book (the `pricebookId` a `/v1/quotes` request names)
             */
            id: string;
            /**
             * Format: date-time
             * @description The revision stamp; null on a dry run
             */
            revision: string | null;
            /**
             * Format: date-time
             * @description When this revision is (or becomes) current
             */
            effective_from: string;
            /** @description Whether it is the revision that prices a quote now */
            current: boolean;
            settings: components["schemas"]["PricebookSettings"];
            /** @description Every SKU of the revision, inactive ones included */
            skus: {
                code: string;
                /** @enum {string} */
                component: "fabric" | "hardware" | "motor" | "trim";
                /** @description Text that begins with =, +, -, @, a tab or a carriage return (a spreadsheet formula) is refused unless written with a leading apostrophe, which is removed */
                description: string;
                /** @enum {string} */
                unit: "sq_ft" | "each" | "linear_ft";
                /** @description Per-unit cost in cents, an exact decimal (fractions of a cent allowed) */
                unit_cost_cents: string;
                /** @default true */
                active: boolean;
            }[];
            labour_tiers: {
                code: string;
                name: string;
                hourly_rate_cents: number;
                /** @description Applied to the labour hours; greater than 0 */
                multiplier: string;
            }[];
            products: {
                sku: string;
                name: string;
                fabric_sku: string;
                hardware_sku: string;
                /** @default null */
                trim_sku: string | null;
                /** @default true */
                active: boolean;
            }[];
            /** @description With `compare_to`, and on a publication: field-level changes from the other revision */
            changes?: components["schemas"]["PricebookFieldChange"][];
        };
        PricebookSettings: {
            /** @description Exact decimal as a string */
            margin_floor: string;
            /** @description Exact decimal as a string */
            fabric_waste_factor: string;
            /** @description Exact decimal as a string */
            labour_base_hours_per_unit: string;
            /** @description Exact decimal as a string */
            labour_hours_per_square_foot: string;
            /** @description Exact decimal as a string */
            labour_motorisation_hours: string;
            /** @description Exact decimal as a string */
            tube_deduction_inches: string;
            /** @description Exact decimal as a string */
            hembar_deduction_inches: string;
            /** @description Exact decimal as a string */
            fabric_width_deduction_inches: string;
            /** @description Exact decimal as a string */
            fabric_drop_allowance_inches: string;
        };
        PricebookFieldChange: {
            /** @enum {string} */
            entity: "setting" | "sku" | "labour_tier" | "product";
            /** @description The setting name, SKU code, tier code or product sku */
            key: string;
            field: string;
            before?: unknown;
            after?: unknown;
        };
        PricebookRevisionPage: {
            data: components["schemas"]["PricebookRevisionSummary"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        PricebookRevisionSummary: {
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            revision: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            effective_from: string;
            current: boolean;
            /** Format: uuid */
            published_by_user_id: string | null;
        };
        PricebookImportResult: {
            dry_run: boolean;
            summary: {
                rows: number;
                created: number;
                updated: number;
                unchanged: number;
                refused: number;
            };
            results: components["schemas"]["PricebookImportRow"][];
            /** @description The revision published (201), or that would be (dry run); null when the file changes nothing or a row is refused */
            revision: {
                /**
                 * Format: uuid
                 * @description The price book (the `pricebookId` a `/v1/quotes` request names)
                 */
                id: string;
                /**
                 * Format: date-time
                 * @description The revision stamp; null on a dry run
                 */
                revision: string | null;
                /**
                 * Format: date-time
                 * @description When this revision is (or becomes) current
                 */
                effective_from: string;
                /** @description Whether it is the revision that prices a quote now */
                current: boolean;
                settings: components["schemas"]["PricebookSettings"];
                /** @description Every SKU of the revision, inactive ones included */
                skus: {
                    code: string;
                    /** @enum {string} */
                    component: "fabric" | "hardware" | "motor" | "trim";
                    /** @description Text that begins with =, +, -, @, a tab or a carriage return (a spreadsheet formula) is refused unless written with a leading apostrophe, which is removed */
                    description: string;
                    /** @enum {string} */
                    unit: "sq_ft" | "each" | "linear_ft";
                    /** @description Per-unit cost in cents, an exact decimal (fractions of a cent allowed) */
                    unit_cost_cents: string;
                    /** @default true */
                    active: boolean;
                }[];
                labour_tiers: {
                    code: string;
                    name: string;
                    hourly_rate_cents: number;
                    /** @description Applied to the labour hours; greater than 0 */
                    multiplier: string;
                }[];
                products: {
                    sku: string;
                    name: string;
                    fabric_sku: string;
                    hardware_sku: string;
                    /** @default null */
                    trim_sku: string | null;
                    /** @default true */
                    active: boolean;
                }[];
                /** @description With `compare_to`, and on a publication: field-level changes from the other revision */
                changes?: components["schemas"]["PricebookFieldChange"][];
            } | null;
        };
        PricebookImportRow: {
            /** @description The line of the file, the header being 1 */
            row: number;
            code: string | null;
            /** @enum {string} */
            result: "created" | "updated" | "unchanged" | "refused";
            /** @description Why the row was refused, by column */
            errors?: {
                [key: string]: string;
            };
        };
        WorkOrderList: {
            data: components["schemas"]["WorkOrder"][];
        };
        WorkOrder: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "PENDING" | "DISPATCHED" | "COMPLETED" | "CANCELLED";
            /**
             * Format: date-time
             * @description Midnight UTC of the scheduled day
             */
            scheduled_date: string | null;
            site_address: string | null;
            notes: string | null;
            /** Format: uuid */
            assigned_technician_id: string | null;
            /** Format: uuid */
            quote_id: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            dispatched_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            completed_at: string | null;
        };
        WorkOrderCreated: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "PENDING" | "DISPATCHED" | "COMPLETED" | "CANCELLED";
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            scheduled_date: string | null;
            /** Format: uuid */
            assigned_technician_id: string | null;
        };
        WorkOrderHistory: {
            data: components["schemas"]["WorkOrderHistoryEntry"][];
        };
        WorkOrderHistoryEntry: {
            /** Format: uuid */
            id: string;
            /**
             * @description null for the creation entry
             * @enum {string|null}
             */
            from_status: "PENDING" | "DISPATCHED" | "COMPLETED" | "CANCELLED" | null;
            /**
             * @description Equal to from_status for notes sent with a repeated status
             * @enum {string}
             */
            to_status: "PENDING" | "DISPATCHED" | "COMPLETED" | "CANCELLED";
            changed_by: {
                /** Format: uuid */
                id: string;
                name: string;
            };
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            changed_at: string;
            notes: string | null;
        };
        WorkOrderStatusResult: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "PENDING" | "DISPATCHED" | "COMPLETED" | "CANCELLED";
            unchanged: boolean;
        };
        InvoiceView: {
            quote_number: number;
            invoice_id: string;
            number: string | null;
            status: string | null;
            /**
             * @description From the provider's live-mode flag on the invoice
             * @enum {string}
             */
            mode: "test" | "live" | "unknown";
            currency: string;
            subtotal_cents: number | null;
            /** @description The sum of the tax lines (one per tax of the quote’s region); null when no line is marked as tax; 0 means no tax */
            tax_cents: number | null;
            total_cents: number | null;
            amount_due_cents: number | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string | null;
            hosted_invoice_url: string | null;
            invoice_pdf_url: string | null;
            lines: {
                description: string;
                amount_cents: number;
                is_tax: boolean;
            }[];
            created: boolean;
        };
        CheckoutSession: {
            session_id: string;
            quote_number: number;
            url: string | null;
            status: string | null;
            payment_status: string | null;
            amount_total_cents: number | null;
            currency: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            expires_at: string | null;
            reused: boolean;
        };
        WebhookReceipt: {
            /** @enum {boolean} */
            received: true;
            handled: boolean;
        };
        IntegrationList: {
            data: components["schemas"]["Integration"][];
        };
        Integration: {
            /** @enum {string} */
            provider: "PAYMENTS" | "ACCOUNTING" | "CRM";
            /** @enum {string} */
            slug: "payments" | "accounting" | "crm";
            display_name: string;
            /** @description The platform holds the provider's client credentials (and, for accounting and CRM, the credential-encryption key) */
            configured: boolean;
            configuration: {
                missing_environment: string[];
                awaiting_tenant_consent: boolean;
                summary: string;
            };
            /** @description The caller's tenant's connection; null when it never connected (always null for payments, the platform's own account) */
            connection: {
                /** @enum {string} */
                status: "DISCONNECTED" | "CONNECTED" | "EXPIRED" | "ERROR";
                external_account_id: string | null;
                instance_url: string | null;
                scopes: string[];
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                connected_at: string | null;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                last_sync_at: string | null;
                last_error: string | null;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                access_token_expires_at: string | null;
                /**
                 * Format: date-time
                 * @description ISO-8601, UTC
                 */
                refresh_token_expires_at: string | null;
            } | null;
        };
        SyncRecordList: {
            data: components["schemas"]["SyncRecord"][];
        };
        SyncRecord: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            provider: "PAYMENTS" | "ACCOUNTING" | "CRM";
            entity_type: string;
            local_id: string;
            external_id: string | null;
            /** @enum {string} */
            status: "PENDING" | "SUCCEEDED" | "FAILED" | "SKIPPED";
            attempts: number;
            amount_cents: number | null;
            last_error: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            synced_at: string | null;
        };
        SyncRunList: {
            data: components["schemas"]["SyncRun"][];
        };
        SyncRun: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            provider: "PAYMENTS" | "ACCOUNTING" | "CRM";
            /** @description The Temporal workflow of the run (`provider-sync-<organization>-<provider>-<scheduled time>`) */
            workflow_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            started_at: string;
            /**
             * Format: date-time
             * @description Null while the run goes on
             */
            finished_at: string | null;
            /** @description Changes read at the provider */
            seen: number;
            /** @description Changes that changed something here (a quote paid or rejected) */
            applied: number;
            watermark_before: string | null;
            /** @description Never past what the run applied */
            watermark_after: string | null;
            error: string | null;
        };
        IntegrationConnect: {
            /** @enum {string} */
            provider: "PAYMENTS" | "ACCOUNTING" | "CRM";
            /** Format: uri */
            authorize_url: string;
            /** @description How long the state in the URL stays valid (600) */
            expires_in_seconds: number;
        };
        IntegrationDisconnect: {
            /** @enum {string} */
            provider: "PAYMENTS" | "ACCOUNTING" | "CRM";
            /** @enum {string} */
            status: "DISCONNECTED";
        };
        WebhookEndpointWithSecret: {
            /** Format: uuid */
            id: string;
            url: string;
            events: string[];
            description: string | null;
            /** @enum {string} */
            status: "enabled" | "disabled";
            /**
             * @description Fixed at registration: core, field or events (each its envelope, headers and retry schedule; docs/webhooks.md)
             * @enum {string}
             */
            format: "core" | "field" | "events";
            /** @description The version the endpoint pinned at registration: its payloads are shaped for it, and an events endpoint's envelopes carry it as apiVersion */
            api_version: string | null;
            /**
             * Format: date-time
             * @description When it was disabled (by an administrator, or after failing for 72 hours); null while enabled
             */
            disabled_at: string | null;
            disabled_reason: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            /** @description Delivery attempts to this endpoint in the last 24 hours */
            attempts_24h: number;
            /** @description The share of those attempts that were delivered (0 to 1); null without an attempt in that time */
            success_rate_24h: number | null;
            /** @description Shown only in this response; begins whsec_ */
            secret: string;
        };
        WebhookEndpointList: {
            data: components["schemas"]["WebhookEndpoint"][];
            /** @description Opaque: pass it back as `cursor`; null on the last page (the Link header says the same) */
            next_cursor: string | null;
        };
        WebhookEndpoint: {
            /** Format: uuid */
            id: string;
            url: string;
            events: string[];
            description: string | null;
            /** @enum {string} */
            status: "enabled" | "disabled";
            /**
             * @description Fixed at registration: core, field or events (each its envelope, headers and retry schedule; docs/webhooks.md)
             * @enum {string}
             */
            format: "core" | "field" | "events";
            /** @description The version the endpoint pinned at registration: its payloads are shaped for it, and an events endpoint's envelopes carry it as apiVersion */
            api_version: string | null;
            /**
             * Format: date-time
             * @description When it was disabled (by an administrator, or after failing for 72 hours); null while enabled
             */
            disabled_at: string | null;
            disabled_reason: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            /** @description Delivery attempts to this endpoint in the last 24 hours */
            attempts_24h: number;
            /** @description The share of those attempts that were delivered (0 to 1); null without an attempt in that time */
            success_rate_24h: number | null;
        };
        WebhookDeliveryAttemptList: {
            data: components["schemas"]["WebhookDeliveryAttempt"][];
        };
        WebhookDeliveryAttempt: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            delivery_id: string;
            /** Format: uuid */
            event_id: string;
            event: string;
            attempt: number;
            /** @enum {string} */
            outcome: "delivered" | "retryable_failure" | "permanent_failure";
            response_status: number | null;
            error: string | null;
            duration_ms: number;
            /** @description The first 4 KiB of the response body, as UTF-8 (the same as response.body_excerpt) */
            response_excerpt: string | null;
            /** @description The request as sent (the signature header included; the secret never is); null when nothing could be sent */
            request: {
                headers: {
                    [key: string]: string;
                };
                body: string;
            } | null;
            /** @description The response; null when none arrived (see error) */
            response: {
                status: number;
                headers: {
                    [key: string]: string;
                };
                /** @description The first 4 KiB of the body */
                body_excerpt: string;
                duration_ms: number;
            } | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            attempted_at: string;
        };
        WebhookTestEventResult: {
            /** Format: uuid */
            delivery_id: string;
            /** Format: uuid */
            event_id: string;
            event: string;
            /** @enum {string} */
            status: "pending";
        };
        WebhookRecovery: {
            /** Format: uuid */
            endpoint_id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            since: string;
            /** @description How many failed events are being re-sent (each a new delivery, one series higher, status pending) */
            recovered: number;
            /** @enum {string} */
            status: "pending";
        };
        WebhookDeliveryList: {
            data: components["schemas"]["WebhookDelivery"][];
        };
        WebhookDelivery: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            endpoint_id: string;
            /**
             * Format: uuid
             * @description The envelope id: the same on every attempt and replay of the event
             */
            event_id: string;
            event: string;
            /** @description 0 for the first delivery of the event to the endpoint, then one more per replay */
            series: number;
            /**
             * @description pending (attempts under way), delivered, failed (attempts exhausted or refused), missed (the endpoint was disabled)
             * @enum {string}
             */
            status: "pending" | "delivered" | "failed" | "missed";
            attempts: number;
            last_error: string | null;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            updated_at: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            delivered_at: string | null;
            /**
             * Format: date-time
             * @description When the next attempt of a pending delivery is due; null once it has ended
             */
            next_attempt_at: string | null;
            /** @description A test event sent from the deliveries page (POST /api/v1/webhook-endpoints/{id}/test-events) */
            test: boolean;
        };
        WebhookReplay: {
            /** Format: uuid */
            delivery_id: string;
            /** Format: uuid */
            event_id: string;
            /** Format: uuid */
            endpoint_id: string;
            /** @enum {string} */
            status: "pending";
        };
        Organization: {
            /** Format: uuid */
            id: string;
            /** @description The name the workspace was registered with (`ops tenant create --name`) */
            name: string;
            subdomain: string;
            /**
             * @description The plan whose limits `/v1/` meters against; the operator changes it
             * @enum {string}
             */
            plan: "starter" | "growth" | "enterprise";
            /** @description Who is emailed when a webhook endpoint is disabled; null only when the workspace has no ADMIN */
            technical_contact_email: string | null;
            /** @description True when none is set and this is the first ADMIN's email */
            technical_contact_is_default: boolean;
            /** @description The name the workspace shows; its registered name until one is set */
            display_name: string;
            /** @description IANA time zone (default America/Toronto): the working day and every local time follow it */
            time_zone: string;
            /** @description `HH:mm` local to `time_zone` (default 08:00): a job's scheduled start */
            working_day_start: string;
            /** @description DRAFT and SENT quotes older than this many days expire (default 30) */
            quote_validity_days: number;
            /** @description Where every crew starts and ends its day; null until set */
            depot: {
                /** @description WGS84 latitude in decimal degrees */
                lat: number;
                /** @description WGS84 longitude in decimal degrees */
                lon: number;
            } | null;
            /** @description Road distance over great-circle distance (default 1.3) */
            road_factor: number;
            /** @description Average speed between stops (default 40) */
            average_speed_kmh: number;
            /** @description The daily overtime a route may hold (default 60) */
            overtime_cap_minutes: number;
            /** @description An ETA moving by more than this fires `dispatch.updated` (default 15) */
            eta_drift_threshold_minutes: number;
            /** @description How long dispatch changes are gathered before `dispatch.updated` fires (default 5) */
            dispatch_coalesce_seconds: number;
        };
        AuditEventList: {
            data: components["schemas"]["AuditEvent"][];
        };
        AuditEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: date-time
             * @description ISO-8601, UTC
             */
            occurred_at: string;
            actor: {
                /** @enum {string} */
                type: "user" | "operator" | "system";
                /** Format: uuid */
                id: string | null;
                email: string | null;
            };
            /** @enum {string} */
            action: "user.invited" | "user.invitation_resent" | "user.invitation_accepted" | "user.updated" | "user.profile_updated" | "user.password_changed" | "user.password_reset_requested" | "user.password_reset" | "organization.created" | "organization.updated" | "organization.plan_changed" | "organization.suspended" | "organization.resumed" | "pricebook.published" | "pricebook.scheduled" | "webhook_endpoint.created" | "webhook_endpoint.updated" | "webhook_endpoint.deleted" | "webhook_endpoint.secret_rotated" | "webhook_endpoint.recovered" | "integration.connected" | "integration.disconnected";
            /** @enum {string} */
            entity_type: "user" | "organization" | "pricebook" | "webhook_endpoint" | "integration";
            entity_id: string;
            changes: {
                field: string;
                before?: unknown;
                after?: unknown;
            }[];
            request_id: string | null;
        };
        JobPage: {
            data: components["schemas"]["Job"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        Job: {
            /** Format: uuid */
            job_id: string;
            /** @description The quote's proposal reference `Q-<quote number>`; null without a quote. */
            quote_ref: string | null;
            /** @enum {string} */
            status: "scheduled" | "dispatched" | "in_progress" | "on_hold" | "complete" | "cancelled";
            /** @enum {string} */
            project_type: "install" | "service";
            site: {
                /** Format: uuid */
                site_id: string;
                name: string;
                region: string;
            } | null;
            crew: {
                /** Format: uuid */
                crew_id: string;
                foreman: string;
                headcount: number;
            } | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            scheduled_start: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            actual_start: string | null;
            hours_logged: number;
            hours_estimated: number;
            /** @description hours_logged / hours_estimated, below 1 until complete, 1 then. */
            percent_complete: number;
            open_change_orders: number;
            /**
             * Format: date-time
             * @description The last change of anything the job shows, to the microsecond; strictly increasing per tenant in commit order.
             */
            updated_at: string;
        };
        JobDetail: {
            /** Format: uuid */
            job_id: string;
            /** @description The quote's proposal reference `Q-<quote number>`; null without a quote. */
            quote_ref: string | null;
            /** @enum {string} */
            status: "scheduled" | "dispatched" | "in_progress" | "on_hold" | "complete" | "cancelled";
            /** @enum {string} */
            project_type: "install" | "service";
            site: {
                /** Format: uuid */
                site_id: string;
                name: string;
                region: string;
            } | null;
            crew: {
                /** Format: uuid */
                crew_id: string;
                foreman: string;
                headcount: number;
            } | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            scheduled_start: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            actual_start: string | null;
            hours_logged: number;
            hours_estimated: number;
            /** @description hours_logged / hours_estimated, below 1 until complete, 1 then. */
            percent_complete: number;
            open_change_orders: number;
            /**
             * Format: date-time
             * @description The last change of anything the job shows, to the microsecond; strictly increasing per tenant in commit order.
             */
            updated_at: string;
            change_orders: components["schemas"]["ChangeOrder"][];
            time_entries: components["schemas"]["TimeEntry"][];
            material_draws: components["schemas"]["MaterialDraw"][];
            /** @description The window, duration and required skills routing uses, with the defaults where the office set nothing. */
            schedule: {
                window_start: string;
                window_end: string;
                duration_minutes: number;
                required_skills: string[];
                /** @description Fields that are defaults rather than set by the office. */
                defaults: ("window" | "duration_minutes")[];
            };
        };
        ChangeOrder: {
            /** Format: uuid */
            change_order_id: string;
            /** Format: uuid */
            job_id: string;
            quote_ref: string | null;
            sequence: number;
            /** @enum {string} */
            status: "submitted" | "approved" | "rejected";
            reason: string;
            delta: {
                labour_hours: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                material_cost: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                direct_cost: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                sell: number;
                /** @enum {string} */
                currency: "CAD";
            };
            revised_contract_value: {
                /** @description Dollars, at most two decimals, computed from integer cents */
                previous: number;
                /** @description Dollars, at most two decimals, computed from integer cents */
                current: number;
                /** @enum {string} */
                currency: "CAD";
            };
            margin: {
                applied: number;
                floor_engaged: boolean;
            };
            approved_by: {
                name: string;
                role: string;
                method: string;
            } | null;
            rejected_by: {
                name: string;
                role: string;
            } | null;
            rejection_reason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            decided_at: string | null;
        };
        TimeEntry: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            technician_id: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            started_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            ended_at: string;
            hours: number;
            notes: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            created_at: string;
        };
        MaterialDraw: {
            /** Format: uuid */
            id: string;
            sku: string;
            /** @description Exact decimal string, in the SKU's unit */
            quantity: string;
            unit: string;
            van_id: string | null;
            /** Format: uuid */
            drawn_by: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            created_at: string;
        };
        JobHistoryPage: {
            data: components["schemas"]["JobHistoryEntry"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        JobHistoryEntry: {
            /** @enum {string} */
            kind: "created" | "status" | "crew" | "time_entry" | "material_draw" | "change_order" | "route";
            /** @description The status before the change: the job's for `status`, the change order's for `change_order`; null otherwise. */
            from_status: string | null;
            /** @description The status after it: the job's for `created` and `status`, the change order's for `change_order`; null otherwise. */
            to_status: string | null;
            /** @description What changed besides the status: the crew, the time entry, the draw or the change order, by id. */
            detail: {
                [key: string]: unknown;
            };
            /**
             * Format: uuid
             * @description The user who made the change.
             */
            changed_by: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp
             */
            changed_at: string;
        };
        CrewList: {
            data: components["schemas"]["Crew"][];
            /** @description Opaque: pass it back as `cursor` for the next page; null on the last page */
            next_cursor: string | null;
            /** @description Whether another page follows */
            has_more: boolean;
        };
        Crew: {
            /** Format: uuid */
            crew_id: string;
            name: string;
            /** @description Null once every member has left the crew (its last technician was deactivated). */
            foreman: {
                /** Format: uuid */
                user_id: string;
                name: string;
            } | null;
            member_ids: string[];
            headcount: number;
        };
        TechnicianList: {
            data: components["schemas"]["Technician"][];
            /** @description Opaque: pass it back as `cursor` for the next page; null on the last page */
            next_cursor: string | null;
            /** @description Whether another page follows */
            has_more: boolean;
        };
        Technician: {
            /** Format: uuid */
            technician_id: string;
            name: string;
            email: string;
            active: boolean;
            skills: string[];
            availability: {
                /** @description Monday to Friday 08:00-17:00 with a 30-minute break unless set. */
                weekly: {
                    /** @enum {string} */
                    day: "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";
                    start: string;
                    end: string;
                    /** @default 0 */
                    break_minutes: number;
                }[];
                time_off: {
                    start: string;
                    end: string;
                    reason?: string;
                }[];
                /** @description True while the technician has the default week (Monday to Friday 08:00-17:00, 30-minute break). */
                is_default: boolean;
            };
            crew_ids: string[];
        };
        SiteList: {
            data: components["schemas"]["Site"][];
            /** @description Opaque: pass it back as `cursor` for the next page; null on the last page */
            next_cursor: string | null;
            /** @description Whether another page follows */
            has_more: boolean;
        };
        Site: {
            /** Format: uuid */
            site_id: string;
            name: string;
            region: string;
            /** @description WGS84 latitude, decimal degrees, -90 to 90 */
            lat: number | null;
            /** @description WGS84 longitude, decimal degrees, -180 to 180 */
            lon: number | null;
            located: boolean;
        };
        RoutesDay: {
            /**
             * Format: date
             * @description A local date of the workspace, YYYY-MM-DD
             */
            date: string;
            data: components["schemas"]["Route"][];
            unassigned: {
                /** Format: uuid */
                jobId: string;
                /** @description Absent before 2026-07-01 */
                reasons?: {
                    /** @enum {string} */
                    code: "SKILL_MISSING" | "OUTSIDE_SHIFT" | "ON_TIME_OFF" | "TIME_WINDOW_UNREACHABLE" | "OVERTIME_CAP" | "SITE_NOT_LOCATED" | "PLAN_ROUTE_LIMIT";
                    detail: string;
                    /** Format: uuid */
                    crewId: string;
                }[];
            }[];
            exclusions?: {
                /** Format: uuid */
                jobId: string;
                /** Format: uuid */
                crewId: string;
                reasons: {
                    /** @enum {string} */
                    code: "SKILL_MISSING" | "OUTSIDE_SHIFT" | "ON_TIME_OFF" | "TIME_WINDOW_UNREACHABLE" | "OVERTIME_CAP" | "SITE_NOT_LOCATED" | "PLAN_ROUTE_LIMIT";
                    detail: string;
                }[];
            }[];
        };
        Route: {
            /**
             * Format: uuid
             * @description null in a dry run or a check: nothing stored
             */
            id: string | null;
            /**
             * Format: date
             * @description A local date of the workspace, YYYY-MM-DD
             */
            date: string;
            /** Format: uuid */
            crewId: string;
            /**
             * Format: uuid
             * @description The crew's foreman (`technicianId` for versions before 2026-01-20)
             */
            assigneeId: string;
            shift: {
                start: string;
                end: string;
            };
            totalDriveMinutes: number;
            overtimeMinutes: number;
            stops: {
                sequence: number;
                /** Format: uuid */
                jobId: string;
                /** @description Local to the workspace's time zone, YYYY-MM-DDTHH:mm */
                etaLocal: string;
                /** @description Local to the workspace's time zone, YYYY-MM-DDTHH:mm */
                departLocal: string;
                windowStart: string;
                windowEnd: string;
                driveMinutesFromPrevious: number;
                /** @description `planned` until the crew reports otherwise */
                status: string;
            }[];
            violations: {
                /** Format: uuid */
                jobId: string;
                /** @enum {string} */
                code: "SKILL_MISSING" | "OUTSIDE_SHIFT" | "ON_TIME_OFF" | "TIME_WINDOW_UNREACHABLE" | "OVERTIME_CAP" | "SITE_NOT_LOCATED" | "PLAN_ROUTE_LIMIT" | "CAPACITY";
                /** @description How far over (minutes past the window or the overtime cap); 0 for a constraint that is not a time */
                minutes: number;
            }[];
            /** @enum {string} */
            travelTimeSource: "great_circle" | "osrm";
            /** @description Increases with every change of this route; null when not stored */
            revision: number | null;
        };
        RoutePlan: {
            /**
             * Format: date
             * @description A local date of the workspace, YYYY-MM-DD
             */
            date: string;
            /** @enum {string} */
            mode: "optimize" | "check";
            dry_run: boolean;
            applied: boolean;
            /** @enum {string} */
            travelTimeSource: "great_circle" | "osrm";
            solver: string | null;
            data: components["schemas"]["Route"][];
            unassigned: {
                /** Format: uuid */
                jobId: string;
                /** @description Absent before 2026-07-01 */
                reasons?: {
                    /** @enum {string} */
                    code: "SKILL_MISSING" | "OUTSIDE_SHIFT" | "ON_TIME_OFF" | "TIME_WINDOW_UNREACHABLE" | "OVERTIME_CAP" | "SITE_NOT_LOCATED" | "PLAN_ROUTE_LIMIT";
                    detail: string;
                    /** Format: uuid */
                    crewId: string;
                }[];
            }[];
            /** @description Every job and crew that could not take it, with the reasons (absent before 2026-07-01) */
            exclusions?: {
                /** Format: uuid */
                jobId: string;
                /** Format: uuid */
                crewId: string;
                reasons: {
                    /** @enum {string} */
                    code: "SKILL_MISSING" | "OUTSIDE_SHIFT" | "ON_TIME_OFF" | "TIME_WINDOW_UNREACHABLE" | "OVERTIME_CAP" | "SITE_NOT_LOCATED" | "PLAN_ROUTE_LIMIT";
                    detail: string;
                }[];
            }[];
        };
        RoutePlanRunning: {
            /** @enum {string} */
            status: "running";
            /** @enum {string} */
            stage: "loading" | "solving" | "applying" | "done";
            workflow_id: string;
        };
        GraphQLResponse: {
            data?: {
                [key: string]: unknown;
            } | null;
            errors?: ({
                message: string;
                extensions: {
                    code: string;
                } & {
                    [key: string]: unknown;
                };
            } & {
                [key: string]: unknown;
            })[];
            extensions?: {
                cost: {
                    requestedQueryCost: number;
                    actualQueryCost: number;
                    throttleStatus: {
                        maximumAvailable: number;
                        currentlyAvailable: number;
                        restoreRate: number;
                    };
                };
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Database reachable */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "database": "reachable",
                     *       "latency_ms": 2,
                     *       "build": {
                     *         "commit": "7037bbd",
                     *         "ref": "main",
                     *         "environment": "production"
                     *       },
                     *       "timestamp": "2026-11-23T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description A request body was sent with a JSON content type and is not valid JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "The request body is not valid JSON.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Database unreachable (the Health object, not an error envelope) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "degraded",
                     *       "database": "unreachable",
                     *       "build": {
                     *         "commit": "7037bbd",
                     *         "ref": "main",
                     *         "environment": "production"
                     *       },
                     *       "timestamp": "2026-11-23T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    listVersions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The versions, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "current": "2026-07-01",
                     *       "data": [
                     *         {
                     *           "version": "2026-07-01",
                     *           "current": true,
                     *           "changelog": "GraphQL schema expansion; scalar `lineItems[].deduction`; route responses name the constraint that excluded a technician",
                     *           "changes": [
                     *             "Quote lines: `lines[].deduction` is a scalar (inches the tube is shorter than the finished width); it was `{tubeIn, hembarIn, fabricIn}` before. Route responses name the constraint that excluded a technician: `exclusions` and the `reasons` of `unassigned` (absent before)."
                     *           ],
                     *           "supported_until": null,
                     *           "retired": false,
                     *           "retired_on": null
                     *         },
                     *         {
                     *           "version": "2026-04-15",
                     *           "current": false,
                     *           "changelog": "`pricebookRevision` added on quote responses",
                     *           "changes": [
                     *             "`pricebookRevision` added on quote responses and on the `quote.created` event."
                     *           ],
                     *           "supported_until": "2027-07-01",
                     *           "retired": false,
                     *           "retired_on": null
                     *         },
                     *         {
                     *           "version": "2026-01-20",
                     *           "current": false,
                     *           "changelog": "`technicianId` renamed `assigneeId` on dispatch payloads; `partsConsumed` on `invoice.generated`",
                     *           "changes": [
                     *             "`technicianId` renamed `assigneeId` on dispatch payloads and route responses; `partsConsumed` added on `invoice.generated`."
                     *           ],
                     *           "supported_until": "2027-04-15",
                     *           "retired": false,
                     *           "retired_on": null
                     *         },
                     *         {
                     *           "version": "2025-10-08",
                     *           "current": false,
                     *           "changelog": "v0 `/estimates` superseded by `/v1/quotes`",
                     *           "changes": [
                     *             "No shape to change: this service never served the v0 `/estimates`; `/v1/quotes` answers as it does for later versions."
                     *           ],
                     *           "supported_until": "2027-01-20",
                     *           "retired": false,
                     *           "retired_on": null
                     *         },
                     *         {
                     *           "version": "2025-06-03",
                     *           "current": false,
                     *           "changelog": "REST API v1 and signed webhooks",
                     *           "changes": [
                     *             "No shape to change: REST API v1 and signed webhooks are answered as they are for later versions."
                     *           ],
                     *           "supported_until": "2026-10-08",
                     *           "retired": true,
                     *           "retired_on": "2026-10-09"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["VersionList"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRoutes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Route table */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "count": 4,
                     *       "routes": [
                     *         {
                     *           "method": "GET",
                     *           "path": "/api/health"
                     *         },
                     *         {
                     *           "method": "POST",
                     *           "path": "/api/v1/auth/login"
                     *         },
                     *         {
                     *           "method": "GET",
                     *           "path": "/api/v1/quotes"
                     *         },
                     *         {
                     *           "method": "POST",
                     *           "path": "/api/v1/quotes/calculate"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["RouteTable"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "openapi": "3.1.0",
                     *       "info": {
                     *         "title": "Shade Office API",
                     *         "version": "1.0.0"
                     *       },
                     *       "paths": {
                     *         "/api/health": {
                     *           "get": {
                     *             "operationId": "getHealth"
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["OpenApiDocument"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiReference: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head>
                     *       <meta charset="utf-8">
                     *       <title>Shade Office API reference</title>
                     *       <meta name="viewport" content="width=device-width, initial-scale=1">
                     *       <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
                     *     </head>
                     *     <body>
                     *       <div id="reference"></div>
                     *       <script src="/docs/assets/swagger-ui-bundle.js"></script>
                     *       <script src="/docs/init.js"></script>
                     *     </body>
                     *     </html>
                     */
                    "text/html": string;
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listConnectors: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Connector readiness */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "count": 3,
                     *       "connectors": [
                     *         {
                     *           "slug": "payments",
                     *           "display_name": "Payments",
                     *           "platform_ready": true,
                     *           "readiness": "platform_account_live",
                     *           "summary": "Configured; payments run through the platform's own account."
                     *         },
                     *         {
                     *           "slug": "accounting",
                     *           "display_name": "Accounting",
                     *           "platform_ready": true,
                     *           "readiness": "awaiting_tenant_consent",
                     *           "summary": "Configured on the platform; each workspace connects its own account."
                     *         },
                     *         {
                     *           "slug": "crm",
                     *           "display_name": "CRM",
                     *           "platform_ready": false,
                     *           "readiness": "operator_credentials_missing",
                     *           "summary": "The platform operator has not configured this provider yet; no workspace can use it."
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ConnectorStatus"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subdomain": "sandbox",
                 *       "email": "admin@sandbox.test",
                 *       "password": "Sandbox!2026"
                 *     }
                 */
                "application/json": {
                    subdomain: string;
                    /** Format: email */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Logged in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI4ZDJlNGY2YS0xYjNjLTRkNWUtOGY3YS05YjBjMWQyZTNmNGEiLCJyb2xlIjoiQURNSU4ifQ.c2lnbmF0dXJlLW9mLXRoZS1leGFtcGxl",
                     *       "token_type": "Bearer",
                     *       "expires_in": 900,
                     *       "user": {
                     *         "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *         "email": "admin@sandbox.test",
                     *         "role": "ADMIN",
                     *         "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["LoginResult"];
                };
            };
            /** @description Credentials rejected (identical for every cause) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "The workspace, email or password is incorrect.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "subdomain": "Invalid input: expected string, received undefined",
                     *             "email": "Invalid input: expected string, received undefined",
                     *             "password": "Invalid input: expected string, received undefined"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Ten failed attempts per fifteen minutes for one workspace and email (a success clears them) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after 840 seconds.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Profile */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *       "email": "admin@sandbox.test",
                     *       "full_name": "Avery Admin",
                     *       "role": "ADMIN",
                     *       "last_login_at": "2026-11-23T09:30:00.000Z",
                     *       "organization": {
                     *         "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *         "name": "Sandbox Shade Co.",
                     *         "subdomain": "sandbox"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "full_name": "Samira Sales"
                 *     }
                 */
                "application/json": {
                    full_name: string;
                };
            };
        };
        responses: {
            /** @description Profile */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *       "email": "admin@sandbox.test",
                     *       "full_name": "Avery Admin",
                     *       "role": "ADMIN",
                     *       "last_login_at": "2026-11-23T09:30:00.000Z",
                     *       "organization": {
                     *         "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *         "name": "Sandbox Shade Co.",
                     *         "subdomain": "sandbox"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "full_name": "Invalid input: expected string, received undefined"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *           "email": "admin@sandbox.test",
                     *           "full_name": "Avery Admin",
                     *           "role": "ADMIN",
                     *           "status": "active",
                     *           "last_login_at": "2026-11-23T09:30:00.000Z",
                     *           "created_at": "2026-11-01T08:00:00.000Z"
                     *         },
                     *         {
                     *           "id": "4c7e9a1b-2d3f-4a5b-8c6d-7e8f9a0b1c2d",
                     *           "email": "sam@sandbox.test",
                     *           "full_name": "Sam Sales",
                     *           "role": "SALES",
                     *           "status": "invited",
                     *           "last_login_at": null,
                     *           "created_at": "2026-11-24T10:15:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["TeamUserList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    inviteUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "sam@sandbox.test",
                 *       "full_name": "Sam Sales",
                 *       "role": "SALES"
                 *     }
                 */
                "application/json": {
                    /** Format: email */
                    email: string;
                    full_name: string;
                    /** @enum {string} */
                    role: "ADMIN" | "SALES" | "TECHNICIAN";
                };
            };
        };
        responses: {
            /** @description Invited */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "4c7e9a1b-2d3f-4a5b-8c6d-7e8f9a0b1c2d",
                     *       "email": "sam@sandbox.test",
                     *       "full_name": "Sam Sales",
                     *       "role": "SALES",
                     *       "status": "invited",
                     *       "invitation_expires_at": "2026-11-27T10:15:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The email is already in the workspace */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "A user with this email is already in the workspace.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "email": "Must be an email address, such as ana@contractor.example",
                     *             "full_name": "Invalid input: expected string, received undefined",
                     *             "role": "Invalid option: expected one of \"ADMIN\"|\"SALES\"|\"TECHNICIAN\""
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resendInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A new link was sent */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "4c7e9a1b-2d3f-4a5b-8c6d-7e8f9a0b1c2d",
                     *       "email": "sam@sandbox.test",
                     *       "full_name": "Sam Sales",
                     *       "role": "SALES",
                     *       "status": "invited",
                     *       "invitation_expires_at": "2026-11-27T10:15:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such user in the workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such user in the workspace",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The user already accepted */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "This user has already accepted their invitation.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "deactivated"
                 *     }
                 */
                "application/json": {
                    full_name?: string;
                    /** @enum {string} */
                    role?: "ADMIN" | "SALES" | "TECHNICIAN";
                    /** @enum {string} */
                    status?: "active" | "deactivated";
                };
            };
        };
        responses: {
            /** @description The user */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6e1f2a3b-4c5d-4e6f-9a7b-8c9d0e1f2a3b",
                     *       "email": "tess@sandbox.test",
                     *       "full_name": "Tess Technician",
                     *       "role": "TECHNICIAN",
                     *       "status": "deactivated",
                     *       "last_login_at": "2026-11-22T07:45:00.000Z",
                     *       "created_at": "2026-11-01T08:00:00.000Z",
                     *       "affected_jobs": [
                     *         {
                     *           "job_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
                     *           "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *           "status": "scheduled",
                     *           "scheduled_date": "2026-12-02"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["UpdatedTeamUser"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such user in the workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such user in the workspace",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The last active ADMIN, or an invited user made active */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "The workspace must keep at least one active ADMIN: make another user ADMIN first.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    acceptInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "Q2hvb3NlLWEtcGFzc3dvcmQtZnJvbS10aGUtZW1haWw",
                 *       "full_name": "Samira Sales",
                 *       "password": "velvet-ladder-orbit-47"
                 *     }
                 */
                "application/json": {
                    /** @description The token of the emailed link. */
                    token: string;
                    full_name?: string;
                    /** @description 12 to 200 characters, not a common password, not containing your email's name. */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Active and logged in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI4ZDJlNGY2YS0xYjNjLTRkNWUtOGY3YS05YjBjMWQyZTNmNGEiLCJyb2xlIjoiQURNSU4ifQ.c2lnbmF0dXJlLW9mLXRoZS1leGFtcGxl",
                     *       "token_type": "Bearer",
                     *       "expires_in": 900,
                     *       "user": {
                     *         "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *         "email": "admin@sandbox.test",
                     *         "role": "ADMIN",
                     *         "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["LoginResult"];
                };
            };
            /** @description The token cannot be used (the same for every reason) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "This link is not valid: it may have expired, been used, or been replaced by a newer one.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The password breaks a password rule (length, a common password, your email’s name), at `password` */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The password breaks a password rule (length, a common password, your email’s name), at `password`",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    requestPasswordReset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subdomain": "sandbox",
                 *       "email": "sam@sandbox.test"
                 *     }
                 */
                "application/json": {
                    subdomain: string;
                    /** Format: email */
                    email: string;
                };
            };
        };
        responses: {
            /** @description Accepted (whatever exists) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accepted": true
                     *     }
                     */
                    "application/json": components["schemas"]["PasswordResetAccepted"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "subdomain": "Invalid input: expected string, received undefined",
                     *             "email": "Must be an email address, such as ana@contractor.example"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    confirmPasswordReset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "Q2hvb3NlLWEtcGFzc3dvcmQtZnJvbS10aGUtZW1haWw",
                 *       "password": "copper-meadow-tide-82"
                 *     }
                 */
                "application/json": {
                    /** @description The token of the emailed link. */
                    token: string;
                    /** @description 12 to 200 characters, not a common password, not containing your email's name. */
                    password: string;
                };
            };
        };
        responses: {
            /** @description The new password is set; logged in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI4ZDJlNGY2YS0xYjNjLTRkNWUtOGY3YS05YjBjMWQyZTNmNGEiLCJyb2xlIjoiQURNSU4ifQ.c2lnbmF0dXJlLW9mLXRoZS1leGFtcGxl",
                     *       "token_type": "Bearer",
                     *       "expires_in": 900,
                     *       "user": {
                     *         "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *         "email": "admin@sandbox.test",
                     *         "role": "ADMIN",
                     *         "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["LoginResult"];
                };
            };
            /** @description The token cannot be used (the same for every reason) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "This link is not valid: it may have expired, been used, or been replaced by a newer one.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The password breaks a password rule (length, a common password, your email’s name), at `password` */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The password breaks a password rule (length, a common password, your email’s name), at `password`",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "current_password": "velvet-ladder-orbit-47",
                 *       "new_password": "copper-meadow-tide-82"
                 *     }
                 */
                "application/json": {
                    current_password: string;
                    /** @description 12 to 200 characters, not a common password, not containing your email's name. */
                    new_password: string;
                };
            };
        };
        responses: {
            /** @description Changed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `current_password` is not the caller's password */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "The current password is incorrect.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `new_password` breaks a password rule (length, a common password, your email’s name) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "`new_password` breaks a password rule (length, a common password, your email’s name)",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listQuotes: {
        parameters: {
            query?: {
                status?: "DRAFT" | "SENT" | "APPROVED" | "REJECTED" | "EXPIRED";
                /** @description The quote of this number (at most one) */
                number?: number;
                /** @description Text in the customer’s name or the reference (Q-<number>), case-insensitive */
                q?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of quotes */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *           "quote_number": 1042,
                     *           "status": "DRAFT",
                     *           "total_amount_cents": 240084,
                     *           "margin_percent": "0.4000",
                     *           "customer_name": "Jordan Rivera",
                     *           "created_at": "2026-11-20T15:04:05.000Z",
                     *           "created_by": {
                     *             "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *             "name": "Avery Admin",
                     *             "email": "admin@sandbox.test"
                     *           }
                     *         },
                     *         {
                     *           "id": "9e2d4b6f-8a1c-4e3d-b5f7-0c2e4a6b8d1f",
                     *           "quote_number": 1041,
                     *           "status": "APPROVED",
                     *           "total_amount_cents": 186415,
                     *           "margin_percent": "0.3500",
                     *           "customer_name": "Morgan Lee",
                     *           "created_at": "2026-11-19T10:22:31.000Z",
                     *           "created_by": {
                     *             "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *             "name": "Avery Admin",
                     *             "email": "admin@sandbox.test"
                     *           }
                     *         }
                     *       ],
                     *       "next_cursor": "9e2d4b6f-8a1c-4e3d-b5f7-0c2e4a6b8d1f"
                     *     }
                     */
                    "application/json": components["schemas"]["QuotePage"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getQuote: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The quote */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "quote_number": 1042,
                     *       "status": "APPROVED",
                     *       "total_amount_cents": 240084,
                     *       "margin_percent": "0.4000",
                     *       "customer_name": "Jordan Rivera",
                     *       "created_at": "2026-11-20T15:04:05.000Z",
                     *       "created_by": {
                     *         "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *         "name": "Avery Admin",
                     *         "email": "admin@sandbox.test"
                     *       },
                     *       "customer_email": "jordan@example.test",
                     *       "override_reason": null,
                     *       "sent_at": "2026-11-20T15:30:00.000Z",
                     *       "approved_at": "2026-11-21T16:45:00.000Z",
                     *       "rejected_at": null,
                     *       "expired_at": null,
                     *       "paid_at": null,
                     *       "acceptance": {
                     *         "name": "Morgan Lee",
                     *         "accepted_at": "2026-11-21T16:45:00.000Z",
                     *         "client_address": "203.0.113.24",
                     *         "user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
                     *       },
                     *       "customer_decline": null,
                     *       "lines": [
                     *         {
                     *           "position": 0,
                     *           "reference": "Living room",
                     *           "width_inches": 72.5,
                     *           "drop_inches": 60,
                     *           "quantity": 2,
                     *           "fabric_sku_code": "FAB-SCREEN-3",
                     *           "hardware_sku_code": "HW-ROLLER-STD",
                     *           "motor_sku_code": "MTR-BATTERY",
                     *           "trim_sku_code": null,
                     *           "cost_cents": 122114,
                     *           "price_cents": 203524
                     *         },
                     *         {
                     *           "position": 1,
                     *           "reference": "Bedroom",
                     *           "width_inches": 35.25,
                     *           "drop_inches": 48,
                     *           "quantity": 1,
                     *           "fabric_sku_code": "FAB-BLACKOUT",
                     *           "hardware_sku_code": "HW-ROLLER-HD",
                     *           "motor_sku_code": null,
                     *           "trim_sku_code": "TRIM-CASSETTE",
                     *           "cost_cents": 21936,
                     *           "price_cents": 36560
                     *         }
                     *       ],
                     *       "calculation": {
                     *         "currency": "CAD",
                     *         "labor_tier": {
                     *           "code": "STANDARD",
                     *           "name": "Standard installation",
                     *           "hourly_rate_cents": 8500,
                     *           "multiplier": "1"
                     *         },
                     *         "margin_floor": "0.35",
                     *         "applied_margin": "0.4",
                     *         "floor_overridden": false,
                     *         "target_margin": "0.4",
                     *         "line_items": [
                     *           {
                     *             "reference": "Living room",
                     *             "width_inches": 72.5,
                     *             "drop_inches": 60,
                     *             "quantity": 2,
                     *             "opening_square_feet": "60.4166",
                     *             "fabric_square_feet_with_waste": "78.1000",
                     *             "labour_hours": "3.7084",
                     *             "cut_list": {
                     *               "tube_length_inches": "71.3750",
                     *               "hembar_length_inches": "71.1250",
                     *               "fabric_width_inches": "71.0000",
                     *               "fabric_drop_inches": "72.0000",
                     *               "fabric_square_feet": "35.5000"
                     *             },
                     *             "components": [
                     *               {
                     *                 "component": "fabric",
                     *                 "sku_code": "FAB-SCREEN-3",
                     *                 "description": "Solar screen fabric, 3% openness",
                     *                 "quantity": "78.1000",
                     *                 "unit": "sq_ft",
                     *                 "unit_cost_cents": "437.5",
                     *                 "extended_cost_cents": 34169
                     *               },
                     *               {
                     *                 "component": "hardware",
                     *                 "sku_code": "HW-ROLLER-STD",
                     *                 "description": "Roller hardware, 1.5 in tube with brackets and clutch",
                     *                 "quantity": "11.8958",
                     *                 "unit": "linear_ft",
                     *                 "unit_cost_cents": "725",
                     *                 "extended_cost_cents": 8624
                     *               },
                     *               {
                     *                 "component": "motor",
                     *                 "sku_code": "MTR-BATTERY",
                     *                 "description": "Rechargeable battery motor with remote",
                     *                 "quantity": "2.0000",
                     *                 "unit": "each",
                     *                 "unit_cost_cents": "23900",
                     *                 "extended_cost_cents": 47800
                     *               },
                     *               {
                     *                 "component": "labour",
                     *                 "sku_code": null,
                     *                 "description": "Installation labour, Standard installation",
                     *                 "quantity": "3.7084",
                     *                 "unit": "hour",
                     *                 "unit_cost_cents": "8500",
                     *                 "extended_cost_cents": 31521
                     *               }
                     *             ],
                     *             "cost_cents": 122114,
                     *             "price_cents": 203524
                     *           },
                     *           {
                     *             "reference": "Bedroom",
                     *             "width_inches": 35.25,
                     *             "drop_inches": 48,
                     *             "quantity": 1,
                     *             "opening_square_feet": "11.7500",
                     *             "fabric_square_feet_with_waste": "15.4688",
                     *             "labour_hours": "0.9850",
                     *             "cut_list": {
                     *               "tube_length_inches": "34.1250",
                     *               "hembar_length_inches": "33.8750",
                     *               "fabric_width_inches": "33.7500",
                     *               "fabric_drop_inches": "60.0000",
                     *               "fabric_square_feet": "14.0625"
                     *             },
                     *             "components": [
                     *               {
                     *                 "component": "fabric",
                     *                 "sku_code": "FAB-BLACKOUT",
                     *                 "description": "Blackout fabric, vinyl-backed",
                     *                 "quantity": "15.4688",
                     *                 "unit": "sq_ft",
                     *                 "unit_cost_cents": "396.75",
                     *                 "extended_cost_cents": 6137
                     *               },
                     *               {
                     *                 "component": "hardware",
                     *                 "sku_code": "HW-ROLLER-HD",
                     *                 "description": "Heavy-duty roller hardware, 2 in tube with brackets and clutch",
                     *                 "quantity": "2.8438",
                     *                 "unit": "linear_ft",
                     *                 "unit_cost_cents": "1087.5",
                     *                 "extended_cost_cents": 3093
                     *               },
                     *               {
                     *                 "component": "trim",
                     *                 "sku_code": "TRIM-CASSETTE",
                     *                 "description": "Aluminium cassette valance",
                     *                 "quantity": "2.9375",
                     *                 "unit": "linear_ft",
                     *                 "unit_cost_cents": "1475",
                     *                 "extended_cost_cents": 4333
                     *               },
                     *               {
                     *                 "component": "labour",
                     *                 "sku_code": null,
                     *                 "description": "Installation labour, Standard installation",
                     *                 "quantity": "0.9850",
                     *                 "unit": "hour",
                     *                 "unit_cost_cents": "8500",
                     *                 "extended_cost_cents": 8373
                     *               }
                     *             ],
                     *             "cost_cents": 21936,
                     *             "price_cents": 36560
                     *           }
                     *         ],
                     *         "totals": {
                     *           "cost_cents": 144050,
                     *           "amount_cents": 240084,
                     *           "profit_cents": 96034,
                     *           "margin_percent": "0.4000"
                     *         },
                     *         "assumptions": {
                     *           "fabric_waste_factor": "0.1",
                     *           "labour_base_hours_per_unit": "0.75",
                     *           "labour_hours_per_square_foot": "0.02",
                     *           "labour_motorisation_hours": "0.5"
                     *         },
                     *         "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *         "quote_number": 1042,
                     *         "status": "APPROVED",
                     *         "persisted": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["QuoteDetail"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such quote in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    calculateQuote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "laborTierCode": "STANDARD",
                 *       "lineItems": [
                 *         {
                 *           "reference": "Living room",
                 *           "widthInches": 72.5,
                 *           "dropInches": 60,
                 *           "quantity": 2,
                 *           "fabricSkuCode": "FAB-SCREEN-3",
                 *           "hardwareSkuCode": "HW-ROLLER-STD",
                 *           "motorSkuCode": "MTR-BATTERY"
                 *         },
                 *         {
                 *           "reference": "Bedroom",
                 *           "widthInches": 35.25,
                 *           "dropInches": 48,
                 *           "quantity": 1,
                 *           "fabricSkuCode": "FAB-BLACKOUT",
                 *           "hardwareSkuCode": "HW-ROLLER-HD",
                 *           "trimSkuCode": "TRIM-CASSETTE"
                 *         }
                 *       ],
                 *       "targetMargin": 0.4,
                 *       "customer": {
                 *         "name": "Jordan Rivera",
                 *         "email": "jordan@example.test"
                 *       },
                 *       "persist": true
                 *     }
                 */
                "application/json": {
                    laborTierCode: string;
                    lineItems: {
                        reference?: string;
                        widthInches: number;
                        dropInches: number;
                        quantity: number;
                        fabricSkuCode: string;
                        hardwareSkuCode: string;
                        motorSkuCode?: string;
                        trimSkuCode?: string;
                    }[];
                    /** @description A fraction in [0, 1), never a percentage; omitted prices at the floor */
                    targetMargin?: number;
                    marginOverride?: {
                        reason: string;
                    };
                    /** @description A new customer (or, with an email the workspace has, that customer renamed); send `customerId` instead to quote an existing one */
                    customer?: {
                        name: string;
                        /** Format: email */
                        email?: string;
                    };
                    /**
                     * Format: uuid
                     * @description An existing customer of the workspace (GET /v1/customers); not together with `customer`
                     */
                    customerId?: string;
                    /** @default false */
                    persist?: boolean;
                };
            };
        };
        responses: {
            /** @description Priced (and persisted when persist is true) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "currency": "CAD",
                     *       "labor_tier": {
                     *         "code": "STANDARD",
                     *         "name": "Standard installation",
                     *         "hourly_rate_cents": 8500,
                     *         "multiplier": "1"
                     *       },
                     *       "margin_floor": "0.35",
                     *       "applied_margin": "0.4",
                     *       "floor_overridden": false,
                     *       "target_margin": "0.4",
                     *       "line_items": [
                     *         {
                     *           "reference": "Living room",
                     *           "width_inches": 72.5,
                     *           "drop_inches": 60,
                     *           "quantity": 2,
                     *           "opening_square_feet": "60.4166",
                     *           "fabric_square_feet_with_waste": "78.1000",
                     *           "labour_hours": "3.7084",
                     *           "cut_list": {
                     *             "tube_length_inches": "71.3750",
                     *             "hembar_length_inches": "71.1250",
                     *             "fabric_width_inches": "71.0000",
                     *             "fabric_drop_inches": "72.0000",
                     *             "fabric_square_feet": "35.5000"
                     *           },
                     *           "components": [
                     *             {
                     *               "component": "fabric",
                     *               "sku_code": "FAB-SCREEN-3",
                     *               "description": "Solar screen fabric, 3% openness",
                     *               "quantity": "78.1000",
                     *               "unit": "sq_ft",
                     *               "unit_cost_cents": "437.5",
                     *               "extended_cost_cents": 34169
                     *             },
                     *             {
                     *               "component": "hardware",
                     *               "sku_code": "HW-ROLLER-STD",
                     *               "description": "Roller hardware, 1.5 in tube with brackets and clutch",
                     *               "quantity": "11.8958",
                     *               "unit": "linear_ft",
                     *               "unit_cost_cents": "725",
                     *               "extended_cost_cents": 8624
                     *             },
                     *             {
                     *               "component": "motor",
                     *               "sku_code": "MTR-BATTERY",
                     *               "description": "Rechargeable battery motor with remote",
                     *               "quantity": "2.0000",
                     *               "unit": "each",
                     *               "unit_cost_cents": "23900",
                     *               "extended_cost_cents": 47800
                     *             },
                     *             {
                     *               "component": "labour",
                     *               "sku_code": null,
                     *               "description": "Installation labour, Standard installation",
                     *               "quantity": "3.7084",
                     *               "unit": "hour",
                     *               "unit_cost_cents": "8500",
                     *               "extended_cost_cents": 31521
                     *             }
                     *           ],
                     *           "cost_cents": 122114,
                     *           "price_cents": 203524
                     *         },
                     *         {
                     *           "reference": "Bedroom",
                     *           "width_inches": 35.25,
                     *           "drop_inches": 48,
                     *           "quantity": 1,
                     *           "opening_square_feet": "11.7500",
                     *           "fabric_square_feet_with_waste": "15.4688",
                     *           "labour_hours": "0.9850",
                     *           "cut_list": {
                     *             "tube_length_inches": "34.1250",
                     *             "hembar_length_inches": "33.8750",
                     *             "fabric_width_inches": "33.7500",
                     *             "fabric_drop_inches": "60.0000",
                     *             "fabric_square_feet": "14.0625"
                     *           },
                     *           "components": [
                     *             {
                     *               "component": "fabric",
                     *               "sku_code": "FAB-BLACKOUT",
                     *               "description": "Blackout fabric, vinyl-backed",
                     *               "quantity": "15.4688",
                     *               "unit": "sq_ft",
                     *               "unit_cost_cents": "396.75",
                     *               "extended_cost_cents": 6137
                     *             },
                     *             {
                     *               "component": "hardware",
                     *               "sku_code": "HW-ROLLER-HD",
                     *               "description": "Heavy-duty roller hardware, 2 in tube with brackets and clutch",
                     *               "quantity": "2.8438",
                     *               "unit": "linear_ft",
                     *               "unit_cost_cents": "1087.5",
                     *               "extended_cost_cents": 3093
                     *             },
                     *             {
                     *               "component": "trim",
                     *               "sku_code": "TRIM-CASSETTE",
                     *               "description": "Aluminium cassette valance",
                     *               "quantity": "2.9375",
                     *               "unit": "linear_ft",
                     *               "unit_cost_cents": "1475",
                     *               "extended_cost_cents": 4333
                     *             },
                     *             {
                     *               "component": "labour",
                     *               "sku_code": null,
                     *               "description": "Installation labour, Standard installation",
                     *               "quantity": "0.9850",
                     *               "unit": "hour",
                     *               "unit_cost_cents": "8500",
                     *               "extended_cost_cents": 8373
                     *             }
                     *           ],
                     *           "cost_cents": 21936,
                     *           "price_cents": 36560
                     *         }
                     *       ],
                     *       "totals": {
                     *         "cost_cents": 144050,
                     *         "amount_cents": 240084,
                     *         "profit_cents": 96034,
                     *         "margin_percent": "0.4000"
                     *       },
                     *       "assumptions": {
                     *         "fabric_waste_factor": "0.1",
                     *         "labour_base_hours_per_unit": "0.75",
                     *         "labour_hours_per_square_foot": "0.02",
                     *         "labour_motorisation_hours": "0.5"
                     *       },
                     *       "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "quote_number": 1042,
                     *       "status": "DRAFT",
                     *       "persisted": true
                     *     }
                     */
                    "application/json": components["schemas"]["CalculationResult"];
                };
            };
            /** @description Unknown SKU or labour tier, SKU of the wrong component, or a margin below the floor without an override */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "Unknown SKU or labour tier, SKU of the wrong component, or a margin below the floor without an override",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TECHNICIAN, or a margin override by a non-ADMIN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "TECHNICIAN, or a margin override by a non-ADMIN",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "laborTierCode": "Invalid input: expected string, received undefined",
                     *             "lineItems": "Invalid input: expected array, received undefined"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    approveQuote: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Approved */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "quote_number": 1042,
                     *       "status": "APPROVED",
                     *       "approved_at": "2026-11-21T16:45:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["ApprovedQuote"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such quote in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not approvable (already approved, rejected or expired) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "Not approvable (already approved, rejected or expired)",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendQuote: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The quote after the send, with its page link */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "quote_number": 1042,
                     *       "status": "SENT",
                     *       "total_amount_cents": 240084,
                     *       "margin_percent": "0.4000",
                     *       "customer_name": "Jordan Rivera",
                     *       "created_at": "2026-11-20T15:04:05.000Z",
                     *       "created_by": {
                     *         "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *         "name": "Avery Admin",
                     *         "email": "admin@sandbox.test"
                     *       },
                     *       "page_url": "http://localhost:3000/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS"
                     *     }
                     */
                    "application/json": components["schemas"]["SentQuote"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such quote in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The quote is approved, rejected or expired */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "The quote is approved, rejected or expired",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rejectQuote: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The quote after the move */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "quote_number": 1042,
                     *       "status": "REJECTED",
                     *       "total_amount_cents": 240084,
                     *       "margin_percent": "0.4000",
                     *       "customer_name": "Jordan Rivera",
                     *       "created_at": "2026-11-20T15:04:05.000Z",
                     *       "created_by": {
                     *         "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *         "name": "Avery Admin",
                     *         "email": "admin@sandbox.test"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["QuoteSummary"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such quote in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The quote is not in a state this action moves from */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "The quote is not in a state this action moves from",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getQuotePage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The token of the link the customer was sent */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The quote (or the decision the customer made on it) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Quote 1042 from Northern Shades Ltd.</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><header><p class="contractor">Northern Shades Ltd.</p><h1>Quote 1042</h1></header><dl class="summary"><div><dt>Total, tax included</dt><dd id="quote-total">$1,198.37</dd></div><div><dt>Valid until</dt><dd id="valid-until"><time dateTime="2026-12-20T00:00:00.000Z">December 20, 2026</time></dd></div></dl><form method="post" action="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/accept" class="card accept" aria-labelledby="accept-heading"><h2 id="accept-heading">Accept this quote</h2><input type="hidden" name="csrf" value="dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU"/><label for="accept-name">Type your full name to accept</label><input id="accept-name" name="name" type="text" required="" maxLength="200" autoComplete="name" aria-describedby="accept-help" value=""/><p id="accept-help" class="help">Typing your name and pressing Accept is your signature.</p><button type="submit" class="primary" id="accept-button">Accept quote 1042</button></form><table class="lines"><caption>What the quote includes</caption><thead><tr><th scope="col">Description</th><th scope="col" class="amount">Price</th></tr></thead><tbody><tr><td>Living room: 2 × 36&quot; × 60&quot; roller shade</td><td class="amount">$642.00</td></tr><tr><td>Bedroom: 1 × 48&quot; × 72&quot; roller shade</td><td class="amount">$418.50</td></tr></tbody><tfoot><tr><th scope="row">Subtotal</th><td class="amount">$1,060.50</td></tr><tr><th scope="row">HST (13%)</th><td class="amount">$137.87</td></tr><tr class="total"><th scope="row">Total</th><td class="amount" data-total-cents="119837">$1,198.37</td></tr></tfoot></table><p class="pdf"><a href="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/quote.pdf" download="quote-1042.pdf">Download this quote as a PDF</a></p><form method="post" action="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/decline" class="card decline" aria-labelledby="decline-heading"><h2 id="decline-heading">Decline this quote</h2><input type="hidden" name="csrf" value="dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU"/><label for="decline-reason">Reason (optional)</label><textarea id="decline-reason" name="reason" rows="3" maxLength="2000"></textarea><button type="submit" class="secondary">Decline</button></form></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description The contractor's workspace is suspended: the quote is not shown and nothing can be decided; the link opens again once it is resumed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This quote is not available right now</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This quote is not available right now</h1><p>Nothing was changed. Try the link again later, or ask the business that sent it.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description No link has this token (the neutral page, revealing nothing) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description The link was replaced by a newer send, expired with the quote, or the quote was decided by the office (the same neutral page) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description Too many requests from this address; back off by Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Too many requests</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>Too many requests</h1><p>Nothing was changed. Wait a minute, then open the link from your email again.</p></main></body></html> */
                    "text/html": string;
                };
            };
        };
    };
    getQuotePagePdf: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The token of the link the customer was sent */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The PDF */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example %PDF-1.3 … */
                    "application/pdf": string;
                };
            };
            /** @description The contractor's workspace is suspended: the quote is not shown and nothing can be decided; the link opens again once it is resumed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This quote is not available right now</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This quote is not available right now</h1><p>Nothing was changed. Try the link again later, or ask the business that sent it.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description No link has this token (the neutral page, revealing nothing) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description The link was replaced by a newer send, expired with the quote, or the quote was decided by the office (the same neutral page) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description Too many requests from this address; back off by Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Too many requests</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>Too many requests</h1><p>Nothing was changed. Wait a minute, then open the link from your email again.</p></main></body></html> */
                    "text/html": string;
                };
            };
        };
    };
    acceptQuoteOnPage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The token of the link the customer was sent */
                token: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "csrf": "dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU",
                 *       "name": "Morgan Lee"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    csrf: string;
                    name: string;
                };
            };
        };
        responses: {
            /** @description Decided: the page says what the customer did */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Quote 1042 from Northern Shades Ltd.</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><header><p class="contractor">Northern Shades Ltd.</p><h1>Quote 1042</h1></header><section class="card" role="status"><h2>Thank you: you accepted this quote</h2><p>Accepted by Morgan Lee on November 21, 2026. Northern Shades Ltd. has been told; your invoice will come by email.</p></section></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description A cross-site post, or a form token not of this link: refused, nothing changed (or, the contractor's workspace being suspended, the page saying the quote is not available for now) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>The form could not be accepted</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>The form could not be accepted</h1><p>Nothing was changed. Open the link from your email again and answer from that page.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description No link has this token (the neutral page, revealing nothing) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description Already decided (by the customer or the office): nothing changed, the page says what happened */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Quote 1042 from Northern Shades Ltd.</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><header><p class="contractor">Northern Shades Ltd.</p><h1>Quote 1042</h1></header><section class="card" role="status"><h2>Thank you: you accepted this quote</h2><p>Accepted by Morgan Lee on November 21, 2026. Northern Shades Ltd. has been told; your invoice will come by email.</p></section></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description The link was replaced by a newer send, expired with the quote, or the quote was decided by the office (the same neutral page) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description The typed name or the reason is not acceptable: the page again with the complaint beside its field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Quote 1042 from Northern Shades Ltd.</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><header><p class="contractor">Northern Shades Ltd.</p><h1>Quote 1042</h1></header><dl class="summary"><div><dt>Total, tax included</dt><dd id="quote-total">$1,198.37</dd></div><div><dt>Valid until</dt><dd id="valid-until"><time dateTime="2026-12-20T00:00:00.000Z">December 20, 2026</time></dd></div></dl><form method="post" action="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/accept" class="card accept" aria-labelledby="accept-heading"><h2 id="accept-heading">Accept this quote</h2><input type="hidden" name="csrf" value="dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU"/><label for="accept-name">Type your full name to accept</label><input id="accept-name" name="name" type="text" required="" maxLength="200" autoComplete="name" aria-describedby="accept-help" value=""/><p id="accept-help" class="help">Typing your name and pressing Accept is your signature.</p><button type="submit" class="primary" id="accept-button">Accept quote 1042</button></form><table class="lines"><caption>What the quote includes</caption><thead><tr><th scope="col">Description</th><th scope="col" class="amount">Price</th></tr></thead><tbody><tr><td>Living room: 2 × 36&quot; × 60&quot; roller shade</td><td class="amount">$642.00</td></tr><tr><td>Bedroom: 1 × 48&quot; × 72&quot; roller shade</td><td class="amount">$418.50</td></tr></tbody><tfoot><tr><th scope="row">Subtotal</th><td class="amount">$1,060.50</td></tr><tr><th scope="row">HST (13%)</th><td class="amount">$137.87</td></tr><tr class="total"><th scope="row">Total</th><td class="amount" data-total-cents="119837">$1,198.37</td></tr></tfoot></table><p class="pdf"><a href="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/quote.pdf" download="quote-1042.pdf">Download this quote as a PDF</a></p><form method="post" action="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/decline" class="card decline" aria-labelledby="decline-heading"><h2 id="decline-heading">Decline this quote</h2><input type="hidden" name="csrf" value="dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU"/><label for="decline-reason">Reason (optional)</label><textarea id="decline-reason" name="reason" rows="3" maxLength="2000"></textarea><button type="submit" class="secondary">Decline</button></form></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description Too many requests from this address; back off by Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Too many requests</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>Too many requests</h1><p>Nothing was changed. Wait a minute, then open the link from your email again.</p></main></body></html> */
                    "text/html": string;
                };
            };
        };
    };
    declineQuoteOnPage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The token of the link the customer was sent */
                token: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "csrf": "dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU",
                 *       "reason": "We went with a smaller window treatment."
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    csrf: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Decided: the page says what the customer did */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Quote 1042 from Northern Shades Ltd.</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><header><p class="contractor">Northern Shades Ltd.</p><h1>Quote 1042</h1></header><section class="card" role="status"><h2>Thank you: you accepted this quote</h2><p>Accepted by Morgan Lee on November 21, 2026. Northern Shades Ltd. has been told; your invoice will come by email.</p></section></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description A cross-site post, or a form token not of this link: refused, nothing changed (or, the contractor's workspace being suspended, the page saying the quote is not available for now) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>The form could not be accepted</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>The form could not be accepted</h1><p>Nothing was changed. Open the link from your email again and answer from that page.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description No link has this token (the neutral page, revealing nothing) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description Already decided (by the customer or the office): nothing changed, the page says what happened */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Quote 1042 from Northern Shades Ltd.</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><header><p class="contractor">Northern Shades Ltd.</p><h1>Quote 1042</h1></header><section class="card" role="status"><h2>Thank you: you accepted this quote</h2><p>Accepted by Morgan Lee on November 21, 2026. Northern Shades Ltd. has been told; your invoice will come by email.</p></section></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description The link was replaced by a newer send, expired with the quote, or the quote was decided by the office (the same neutral page) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>This link does not open a quote</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>This link does not open a quote</h1><p>It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.</p></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description The typed name or the reason is not acceptable: the page again with the complaint beside its field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Quote 1042 from Northern Shades Ltd.</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><header><p class="contractor">Northern Shades Ltd.</p><h1>Quote 1042</h1></header><dl class="summary"><div><dt>Total, tax included</dt><dd id="quote-total">$1,198.37</dd></div><div><dt>Valid until</dt><dd id="valid-until"><time dateTime="2026-12-20T00:00:00.000Z">December 20, 2026</time></dd></div></dl><form method="post" action="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/accept" class="card accept" aria-labelledby="accept-heading"><h2 id="accept-heading">Accept this quote</h2><input type="hidden" name="csrf" value="dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU"/><label for="accept-name">Type your full name to accept</label><input id="accept-name" name="name" type="text" required="" maxLength="200" autoComplete="name" aria-describedby="accept-help" value=""/><p id="accept-help" class="help">Typing your name and pressing Accept is your signature.</p><button type="submit" class="primary" id="accept-button">Accept quote 1042</button></form><table class="lines"><caption>What the quote includes</caption><thead><tr><th scope="col">Description</th><th scope="col" class="amount">Price</th></tr></thead><tbody><tr><td>Living room: 2 × 36&quot; × 60&quot; roller shade</td><td class="amount">$642.00</td></tr><tr><td>Bedroom: 1 × 48&quot; × 72&quot; roller shade</td><td class="amount">$418.50</td></tr></tbody><tfoot><tr><th scope="row">Subtotal</th><td class="amount">$1,060.50</td></tr><tr><th scope="row">HST (13%)</th><td class="amount">$137.87</td></tr><tr class="total"><th scope="row">Total</th><td class="amount" data-total-cents="119837">$1,198.37</td></tr></tfoot></table><p class="pdf"><a href="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/quote.pdf" download="quote-1042.pdf">Download this quote as a PDF</a></p><form method="post" action="/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS/decline" class="card decline" aria-labelledby="decline-heading"><h2 id="decline-heading">Decline this quote</h2><input type="hidden" name="csrf" value="dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU"/><label for="decline-reason">Reason (optional)</label><textarea id="decline-reason" name="reason" rows="3" maxLength="2000"></textarea><button type="submit" class="secondary">Decline</button></form></main></body></html> */
                    "text/html": string;
                };
            };
            /** @description Too many requests from this address; back off by Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><meta name="robots" content="noindex, nofollow"/><title>Too many requests</title><link rel="stylesheet" href="/q/assets/quote-page.css"/><link rel="icon" type="image/svg+xml" href="/q/assets/favicon.svg"/></head><body><main class="page"><h1>Too many requests</h1><p>Nothing was changed. Wait a minute, then open the link from your email again.</p></main></body></html> */
                    "text/html": string;
                };
            };
        };
    };
    listV1Quotes: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page */
                cursor?: string;
                /** @description The quote of this reference (at most one) */
                reference?: string;
                status?: "draft" | "sent" | "approved" | "rejected" | "expired";
                /** @description Text in the customer’s name or the reference, case-insensitive */
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of quotes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *           "reference": "Q-1042",
                     *           "status": "draft",
                     *           "revision": 1,
                     *           "currency": "CAD",
                     *           "customerId": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                     *           "taxRegion": "CA-ON",
                     *           "pricebookId": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *           "pricebookRevision": "2026-11-01T00:00:00.000Z",
                     *           "totals": {
                     *             "subtotal": 2188.48,
                     *             "taxTotal": 284.5,
                     *             "grandTotal": 2472.98,
                     *             "marginPct": 35,
                     *             "currency": "CAD"
                     *           },
                     *           "taxLines": [
                     *             {
                     *               "code": "HST",
                     *               "rate": 0.13,
                     *               "amount": 284.5
                     *             }
                     *           ],
                     *           "lines": [
                     *             {
                     *               "sku": "ROLLER-SCREEN",
                     *               "quantity": 2,
                     *               "unitPrice": 939.34,
                     *               "extendedPrice": 1878.68,
                     *               "cutList": {
                     *                 "tubeIn": 71.375,
                     *                 "hembarIn": 71.125,
                     *                 "fabricIn": 71
                     *               },
                     *               "deduction": 1.125,
                     *               "marginPct": 35,
                     *               "configuration": {
                     *                 "finishedWidthIn": 72.5,
                     *                 "finishedHeightIn": 60,
                     *                 "controlSide": "left",
                     *                 "motorised": true,
                     *                 "motorSku": "MTR-BATTERY"
                     *               }
                     *             },
                     *             {
                     *               "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *               "quantity": 1,
                     *               "unitPrice": 309.8,
                     *               "extendedPrice": 309.8,
                     *               "cutList": {
                     *                 "tubeIn": 34.125,
                     *                 "hembarIn": 33.875,
                     *                 "fabricIn": 33.75
                     *               },
                     *               "deduction": 1.125,
                     *               "marginPct": 35,
                     *               "configuration": {
                     *                 "finishedWidthIn": 35.25,
                     *                 "finishedHeightIn": 48,
                     *                 "controlSide": "right",
                     *                 "motorised": false,
                     *                 "motorSku": null
                     *               }
                     *             }
                     *           ],
                     *           "createdAt": "2026-11-20T15:04:05.000Z"
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["V1QuotePage"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request is malformed.",
                     *       "status": 400,
                     *       "detail": "A cursor this list did not hand out",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A malformed reference or limit */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "A malformed reference or limit",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createV1Quote: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 characters; the first response is answered again for 24 hours */
                "Idempotency-Key"?: string;
                /** @description YYYY-MM-DD; the tenant’s pinned version when omitted */
                "Service-Version"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "customerId": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                 *       "currency": "CAD",
                 *       "taxRegion": "CA-ON",
                 *       "pricebookId": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "lines": [
                 *         {
                 *           "sku": "ROLLER-SCREEN",
                 *           "quantity": 2,
                 *           "configuration": {
                 *             "finishedWidthIn": 72.5,
                 *             "finishedHeightIn": 60,
                 *             "controlSide": "left",
                 *             "motorised": true,
                 *             "motorSku": "MTR-BATTERY"
                 *           }
                 *         },
                 *         {
                 *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                 *           "quantity": 1,
                 *           "configuration": {
                 *             "finishedWidthIn": 35.25,
                 *             "finishedHeightIn": 48,
                 *             "controlSide": "right",
                 *             "motorised": false
                 *           }
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uuid
                     * @description A customer of the tenant (GET/POST /v1/customers)
                     */
                    customerId: string;
                    /** @enum {string} */
                    currency: "CAD";
                    /** @enum {string} */
                    taxRegion: "CA-AB" | "CA-BC" | "CA-MB" | "CA-NB" | "CA-NL" | "CA-NS" | "CA-NT" | "CA-NU" | "CA-ON" | "CA-PE" | "CA-QC" | "CA-SK" | "CA-YT";
                    /**
                     * Format: uuid
                     * @description The tenant’s rate card (GET /v1/pricebooks); its current revision prices the quote
                     */
                    pricebookId: string;
                    /** @description The installation labour tier; the rate card’s STANDARD tier (else its first) when omitted */
                    laborTierCode?: string;
                    lines: {
                        /** @description A product of the catalogue (GET /v1/products) */
                        sku: string;
                        quantity: number;
                        configuration: {
                            /** @description The finished width, inches (the width the engine prices) */
                            finishedWidthIn: number;
                            /** @description The finished height, inches (the drop) */
                            finishedHeightIn: number;
                            /**
                             * @description Kept on the line for the workshop
                             * @enum {string}
                             */
                            controlSide: "left" | "right";
                            /** @default false */
                            motorised?: boolean;
                            /** @description A motor SKU of the rate card; required when motorised */
                            motorSku?: string;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description The quote, revision 1 */
            201: {
                headers: {
                    /** @description This request’s id (also in any problem) */
                    "X-Request-Id": string;
                    /** @description Tokens left in the tenant’s bucket */
                    "X-RateLimit-Remaining": string;
                    /** @description The pricing engine’s own time for this quote, milliseconds */
                    "X-Engine-Latency-Ms": string;
                    /** @description `true` when this is the first answer to the same Idempotency-Key, answered again */
                    "Idempotent-Replayed"?: string;
                    /** @description The version this answer is shaped for */
                    "Service-Version": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "reference": "Q-1042",
                     *       "status": "draft",
                     *       "revision": 1,
                     *       "currency": "CAD",
                     *       "customerId": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                     *       "taxRegion": "CA-ON",
                     *       "pricebookId": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *       "pricebookRevision": "2026-11-01T00:00:00.000Z",
                     *       "totals": {
                     *         "subtotal": 2188.48,
                     *         "taxTotal": 284.5,
                     *         "grandTotal": 2472.98,
                     *         "marginPct": 35,
                     *         "currency": "CAD"
                     *       },
                     *       "taxLines": [
                     *         {
                     *           "code": "HST",
                     *           "rate": 0.13,
                     *           "amount": 284.5
                     *         }
                     *       ],
                     *       "lines": [
                     *         {
                     *           "sku": "ROLLER-SCREEN",
                     *           "quantity": 2,
                     *           "unitPrice": 939.34,
                     *           "extendedPrice": 1878.68,
                     *           "cutList": {
                     *             "tubeIn": 71.375,
                     *             "hembarIn": 71.125,
                     *             "fabricIn": 71
                     *           },
                     *           "deduction": 1.125,
                     *           "marginPct": 35,
                     *           "configuration": {
                     *             "finishedWidthIn": 72.5,
                     *             "finishedHeightIn": 60,
                     *             "controlSide": "left",
                     *             "motorised": true,
                     *             "motorSku": "MTR-BATTERY"
                     *           }
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *           "quantity": 1,
                     *           "unitPrice": 309.8,
                     *           "extendedPrice": 309.8,
                     *           "cutList": {
                     *             "tubeIn": 34.125,
                     *             "hembarIn": 33.875,
                     *             "fabricIn": 33.75
                     *           },
                     *           "deduction": 1.125,
                     *           "marginPct": 35,
                     *           "configuration": {
                     *             "finishedWidthIn": 35.25,
                     *             "finishedHeightIn": 48,
                     *             "controlSide": "right",
                     *             "motorised": false,
                     *             "motorSku": null
                     *           }
                     *         }
                     *       ],
                     *       "createdAt": "2026-11-20T15:04:05.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["V1Quote"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description idempotency-key-in-use: the first request with this key is still running */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "idempotency-key-in-use: the first request with this key is still running",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "customerId": "Invalid input: expected string, received undefined",
                     *         "currency": "Only CAD is supported",
                     *         "taxRegion": "A Canadian province or territory code: CA-AB, CA-BC, CA-MB, CA-NB, CA-NL, CA-NS, CA-NT, CA-NU, CA-ON, CA-PE, CA-QC, CA-SK, CA-YT",
                     *         "pricebookId": "Invalid input: expected string, received undefined",
                     *         "lines": "Invalid input: expected array, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1Quote: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The quote */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "reference": "Q-1042",
                     *       "status": "draft",
                     *       "revision": 1,
                     *       "currency": "CAD",
                     *       "customerId": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                     *       "taxRegion": "CA-ON",
                     *       "pricebookId": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *       "pricebookRevision": "2026-11-01T00:00:00.000Z",
                     *       "totals": {
                     *         "subtotal": 2188.48,
                     *         "taxTotal": 284.5,
                     *         "grandTotal": 2472.98,
                     *         "marginPct": 35,
                     *         "currency": "CAD"
                     *       },
                     *       "taxLines": [
                     *         {
                     *           "code": "HST",
                     *           "rate": 0.13,
                     *           "amount": 284.5
                     *         }
                     *       ],
                     *       "lines": [
                     *         {
                     *           "sku": "ROLLER-SCREEN",
                     *           "quantity": 2,
                     *           "unitPrice": 939.34,
                     *           "extendedPrice": 1878.68,
                     *           "cutList": {
                     *             "tubeIn": 71.375,
                     *             "hembarIn": 71.125,
                     *             "fabricIn": 71
                     *           },
                     *           "deduction": 1.125,
                     *           "marginPct": 35,
                     *           "configuration": {
                     *             "finishedWidthIn": 72.5,
                     *             "finishedHeightIn": 60,
                     *             "controlSide": "left",
                     *             "motorised": true,
                     *             "motorSku": "MTR-BATTERY"
                     *           }
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *           "quantity": 1,
                     *           "unitPrice": 309.8,
                     *           "extendedPrice": 309.8,
                     *           "cutList": {
                     *             "tubeIn": 34.125,
                     *             "hembarIn": 33.875,
                     *             "fabricIn": 33.75
                     *           },
                     *           "deduction": 1.125,
                     *           "marginPct": 35,
                     *           "configuration": {
                     *             "finishedWidthIn": 35.25,
                     *             "finishedHeightIn": 48,
                     *             "controlSide": "right",
                     *             "motorised": false,
                     *             "motorSku": null
                     *           }
                     *         }
                     *       ],
                     *       "createdAt": "2026-11-20T15:04:05.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["V1Quote"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such quote in the tenant",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "id": "Invalid UUID"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    reviseV1Quote: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 characters; the first response is answered again for 24 hours */
                "Idempotency-Key"?: string;
                /** @description YYYY-MM-DD; the tenant’s pinned version when omitted */
                "Service-Version"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "customerId": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                 *       "currency": "CAD",
                 *       "taxRegion": "CA-ON",
                 *       "pricebookId": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "lines": [
                 *         {
                 *           "sku": "ROLLER-SCREEN",
                 *           "quantity": 2,
                 *           "configuration": {
                 *             "finishedWidthIn": 72.5,
                 *             "finishedHeightIn": 60,
                 *             "controlSide": "left",
                 *             "motorised": true,
                 *             "motorSku": "MTR-BATTERY"
                 *           }
                 *         },
                 *         {
                 *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                 *           "quantity": 1,
                 *           "configuration": {
                 *             "finishedWidthIn": 35.25,
                 *             "finishedHeightIn": 48,
                 *             "controlSide": "right",
                 *             "motorised": false
                 *           }
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uuid
                     * @description A customer of the tenant (GET/POST /v1/customers)
                     */
                    customerId: string;
                    /** @enum {string} */
                    currency: "CAD";
                    /** @enum {string} */
                    taxRegion: "CA-AB" | "CA-BC" | "CA-MB" | "CA-NB" | "CA-NL" | "CA-NS" | "CA-NT" | "CA-NU" | "CA-ON" | "CA-PE" | "CA-QC" | "CA-SK" | "CA-YT";
                    /**
                     * Format: uuid
                     * @description The tenant’s rate card (GET /v1/pricebooks); its current revision prices the quote
                     */
                    pricebookId: string;
                    /** @description The installation labour tier; the rate card’s STANDARD tier (else its first) when omitted */
                    laborTierCode?: string;
                    lines: {
                        /** @description A product of the catalogue (GET /v1/products) */
                        sku: string;
                        quantity: number;
                        configuration: {
                            /** @description The finished width, inches (the width the engine prices) */
                            finishedWidthIn: number;
                            /** @description The finished height, inches (the drop) */
                            finishedHeightIn: number;
                            /**
                             * @description Kept on the line for the workshop
                             * @enum {string}
                             */
                            controlSide: "left" | "right";
                            /** @default false */
                            motorised?: boolean;
                            /** @description A motor SKU of the rate card; required when motorised */
                            motorSku?: string;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description The quote at its new revision */
            201: {
                headers: {
                    /** @description This request’s id (also in any problem) */
                    "X-Request-Id": string;
                    /** @description Tokens left in the tenant’s bucket */
                    "X-RateLimit-Remaining": string;
                    /** @description The pricing engine’s own time for this quote, milliseconds */
                    "X-Engine-Latency-Ms": string;
                    /** @description `true` when this is the first answer to the same Idempotency-Key, answered again */
                    "Idempotent-Replayed"?: string;
                    /** @description The version this answer is shaped for */
                    "Service-Version": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "reference": "Q-1042",
                     *       "status": "draft",
                     *       "revision": 2,
                     *       "currency": "CAD",
                     *       "customerId": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                     *       "taxRegion": "CA-ON",
                     *       "pricebookId": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *       "pricebookRevision": "2026-11-01T00:00:00.000Z",
                     *       "totals": {
                     *         "subtotal": 2188.48,
                     *         "taxTotal": 284.5,
                     *         "grandTotal": 2472.98,
                     *         "marginPct": 35,
                     *         "currency": "CAD"
                     *       },
                     *       "taxLines": [
                     *         {
                     *           "code": "HST",
                     *           "rate": 0.13,
                     *           "amount": 284.5
                     *         }
                     *       ],
                     *       "lines": [
                     *         {
                     *           "sku": "ROLLER-SCREEN",
                     *           "quantity": 2,
                     *           "unitPrice": 939.34,
                     *           "extendedPrice": 1878.68,
                     *           "cutList": {
                     *             "tubeIn": 71.375,
                     *             "hembarIn": 71.125,
                     *             "fabricIn": 71
                     *           },
                     *           "deduction": 1.125,
                     *           "marginPct": 35,
                     *           "configuration": {
                     *             "finishedWidthIn": 72.5,
                     *             "finishedHeightIn": 60,
                     *             "controlSide": "left",
                     *             "motorised": true,
                     *             "motorSku": "MTR-BATTERY"
                     *           }
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *           "quantity": 1,
                     *           "unitPrice": 309.8,
                     *           "extendedPrice": 309.8,
                     *           "cutList": {
                     *             "tubeIn": 34.125,
                     *             "hembarIn": 33.875,
                     *             "fabricIn": 33.75
                     *           },
                     *           "deduction": 1.125,
                     *           "marginPct": 35,
                     *           "configuration": {
                     *             "finishedWidthIn": 35.25,
                     *             "finishedHeightIn": 48,
                     *             "controlSide": "right",
                     *             "motorised": false,
                     *             "motorSku": null
                     *           }
                     *         }
                     *       ],
                     *       "createdAt": "2026-11-20T15:04:05.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["V1Quote"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such quote in the tenant",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not revisable (approved, rejected or expired), or idempotency-key-in-use */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "Not revisable (approved, rejected or expired), or idempotency-key-in-use",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "customerId": "Invalid input: expected string, received undefined",
                     *         "currency": "Only CAD is supported",
                     *         "taxRegion": "A Canadian province or territory code: CA-AB, CA-BC, CA-MB, CA-NB, CA-NL, CA-NS, CA-NT, CA-NU, CA-ON, CA-PE, CA-QC, CA-SK, CA-YT",
                     *         "pricebookId": "Invalid input: expected string, received undefined",
                     *         "lines": "Invalid input: expected array, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listV1Products: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of products */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "0d1c2b3a-4f5e-4a6b-9c8d-7e6f5a4b3c2d",
                     *           "sku": "ROLLER-SCREEN",
                     *           "name": "Solar screen roller shade",
                     *           "components": {
                     *             "fabricSku": "FAB-SCREEN-3",
                     *             "hardwareSku": "HW-ROLLER-STD",
                     *             "trimSku": null
                     *           }
                     *         },
                     *         {
                     *           "id": "1e2d3c4b-5a6f-4b7c-8d9e-0f1a2b3c4d5e",
                     *           "sku": "ROLLER-SCREEN-CASSETTE",
                     *           "name": "Solar screen roller shade in a cassette",
                     *           "components": {
                     *             "fabricSku": "FAB-SCREEN-3",
                     *             "hardwareSku": "HW-ROLLER-STD",
                     *             "trimSku": "TRIM-CASSETTE"
                     *           }
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["V1ProductPage"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listV1Customers: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page */
                cursor?: string;
                /** @description Text in the name or the email, case-insensitive */
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of customers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                     *           "name": "Jordan Rivera",
                     *           "email": "jordan@example.test",
                     *           "createdAt": "2026-11-20T15:00:00.000Z"
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["V1CustomerPage"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createV1Customer: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 characters; the first response is answered again for 24 hours */
                "Idempotency-Key"?: string;
                /** @description YYYY-MM-DD; the tenant’s pinned version when omitted */
                "Service-Version"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Jordan Rivera",
                 *       "email": "jordan@example.test"
                 *     }
                 */
                "application/json": {
                    name: string;
                    /** Format: email */
                    email?: string;
                };
            };
        };
        responses: {
            /** @description The tenant’s customer of that email */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                     *       "name": "Jordan Rivera",
                     *       "email": "jordan@example.test",
                     *       "createdAt": "2026-11-20T15:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["V1Customer"];
                };
            };
            /** @description Added */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
                     *       "name": "Jordan Rivera",
                     *       "email": "jordan@example.test",
                     *       "createdAt": "2026-11-20T15:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["V1Customer"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "name": "Invalid input: expected string, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listV1Pricebooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The price books */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *           "revision": "2026-11-01T00:00:00.000Z",
                     *           "currency": "CAD"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["V1PricebookList"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getPricebook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current revision */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *       "revision": "2026-11-01T00:00:00.000Z",
                     *       "effective_from": "2026-11-01T00:00:00.000Z",
                     *       "current": true,
                     *       "settings": {
                     *         "margin_floor": "0.35",
                     *         "fabric_waste_factor": "0.1",
                     *         "labour_base_hours_per_unit": "0.75",
                     *         "labour_hours_per_square_foot": "0.02",
                     *         "labour_motorisation_hours": "0.5",
                     *         "tube_deduction_inches": "1.125",
                     *         "hembar_deduction_inches": "1.375",
                     *         "fabric_width_deduction_inches": "1.5",
                     *         "fabric_drop_allowance_inches": "12"
                     *       },
                     *       "skus": [
                     *         {
                     *           "code": "FAB-SCREEN-3",
                     *           "component": "fabric",
                     *           "description": "Solar screen fabric, 3% openness",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "437.5",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "FAB-BLACKOUT",
                     *           "component": "fabric",
                     *           "description": "Blackout fabric, vinyl-backed",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "396.75",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-STD",
                     *           "component": "hardware",
                     *           "description": "Roller hardware, 1.5 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "725",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-HD",
                     *           "component": "hardware",
                     *           "description": "Heavy-duty roller hardware, 2 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1087.5",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-BATTERY",
                     *           "component": "motor",
                     *           "description": "Rechargeable battery motor with remote",
                     *           "unit": "each",
                     *           "unit_cost_cents": "23900",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-WIRED",
                     *           "component": "motor",
                     *           "description": "Hard-wired 120 V AC motor",
                     *           "unit": "each",
                     *           "unit_cost_cents": "19850",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-CASSETTE",
                     *           "component": "trim",
                     *           "description": "Aluminium cassette valance",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1475",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-FASCIA",
                     *           "component": "trim",
                     *           "description": "Fascia cover, fabric-wrapped",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "862.5",
                     *           "active": true
                     *         }
                     *       ],
                     *       "labour_tiers": [
                     *         {
                     *           "code": "STANDARD",
                     *           "name": "Standard installation",
                     *           "hourly_rate_cents": 8500,
                     *           "multiplier": "1"
                     *         },
                     *         {
                     *           "code": "PREMIUM",
                     *           "name": "Premium installation",
                     *           "hourly_rate_cents": 11500,
                     *           "multiplier": "1.25"
                     *         }
                     *       ],
                     *       "products": [
                     *         {
                     *           "sku": "ROLLER-SCREEN",
                     *           "name": "Solar screen roller shade",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-SCREEN-CASSETTE",
                     *           "name": "Solar screen roller shade in a cassette",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": "TRIM-CASSETTE",
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT",
                     *           "name": "Blackout roller shade",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *           "name": "Blackout roller shade, heavy duty, with fascia",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-HD",
                     *           "trim_sku": "TRIM-FASCIA",
                     *           "active": true
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["PricebookRevision"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not this workspace’s price book */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "Not this workspace’s price book",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "id": "Invalid UUID"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listPricebookRevisions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of revisions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "revision": "2026-11-26T15:04:05.123Z",
                     *           "effective_from": "2026-11-30T05:00:00.000Z",
                     *           "current": false,
                     *           "published_by_user_id": "0b6f2c1e-7d4a-4c3b-9e2f-5a8d1c4b7e90"
                     *         },
                     *         {
                     *           "revision": "2026-11-01T00:00:00.000Z",
                     *           "effective_from": "2026-11-01T00:00:00.000Z",
                     *           "current": true,
                     *           "published_by_user_id": null
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["PricebookRevisionPage"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    publishPricebookRevision: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "base_revision": "2026-11-01T00:00:00.000Z",
                 *       "changes": [
                 *         {
                 *           "op": "adjust_costs",
                 *           "component": "fabric",
                 *           "percent": "7.5"
                 *         }
                 *       ],
                 *       "effective_from": "2026-11-30T05:00:00.000Z"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date-time
                     * @description The newest revision (the current one, or a scheduled one when one is pending): else 409
                     */
                    base_revision: string;
                    changes: ({
                        /** @enum {string} */
                        op: "set_setting";
                        /** @enum {string} */
                        field: "margin_floor" | "fabric_waste_factor" | "labour_base_hours_per_unit" | "labour_hours_per_square_foot" | "labour_motorisation_hours" | "tube_deduction_inches" | "hembar_deduction_inches" | "fabric_width_deduction_inches" | "fabric_drop_allowance_inches";
                        value: string;
                    } | {
                        /** @enum {string} */
                        op: "upsert_sku";
                        sku: {
                            code: string;
                            /** @enum {string} */
                            component: "fabric" | "hardware" | "motor" | "trim";
                            /** @description Text that begins with =, +, -, @, a tab or a carriage return (a spreadsheet formula) is refused unless written with a leading apostrophe, which is removed */
                            description: string;
                            /** @enum {string} */
                            unit: "sq_ft" | "each" | "linear_ft";
                            /** @description Per-unit cost in cents, an exact decimal (fractions of a cent allowed) */
                            unit_cost_cents: string;
                            /** @default true */
                            active?: boolean;
                        };
                    } | {
                        /** @enum {string} */
                        op: "deactivate_sku";
                        code: string;
                    } | {
                        /** @enum {string} */
                        op: "upsert_labour_tier";
                        tier: {
                            code: string;
                            name: string;
                            hourly_rate_cents: number;
                            /** @description Applied to the labour hours; greater than 0 */
                            multiplier: string;
                        };
                    } | {
                        /** @enum {string} */
                        op: "adjust_costs";
                        /**
                         * @description Omitted: every active SKU
                         * @enum {string}
                         */
                        component?: "fabric" | "hardware" | "motor" | "trim";
                        /** @description Percent, for example "7.5" or "-3"; -100 to 1000 */
                        percent: string;
                    } | {
                        /** @enum {string} */
                        op: "upsert_product";
                        product: {
                            sku: string;
                            name: string;
                            fabric_sku: string;
                            hardware_sku: string;
                            /** @default null */
                            trim_sku?: string | null;
                            /** @default true */
                            active?: boolean;
                        };
                    })[];
                    /**
                     * Format: date-time
                     * @description Omitted: current at once. In the future: current at that instant
                     */
                    effective_from?: string;
                    /** @default false */
                    dry_run?: boolean;
                };
            };
        };
        responses: {
            /** @description Dry run: the revision that would be published (`revision` null); nothing written */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *       "revision": null,
                     *       "effective_from": "2026-11-30T05:00:00.000Z",
                     *       "current": false,
                     *       "settings": {
                     *         "margin_floor": "0.35",
                     *         "fabric_waste_factor": "0.1",
                     *         "labour_base_hours_per_unit": "0.75",
                     *         "labour_hours_per_square_foot": "0.02",
                     *         "labour_motorisation_hours": "0.5",
                     *         "tube_deduction_inches": "1.125",
                     *         "hembar_deduction_inches": "1.375",
                     *         "fabric_width_deduction_inches": "1.5",
                     *         "fabric_drop_allowance_inches": "12"
                     *       },
                     *       "skus": [
                     *         {
                     *           "code": "FAB-BLACKOUT",
                     *           "component": "fabric",
                     *           "description": "Blackout fabric, vinyl-backed",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "426.51",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "FAB-SCREEN-3",
                     *           "component": "fabric",
                     *           "description": "Solar screen fabric, 3% openness",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "470.3",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-HD",
                     *           "component": "hardware",
                     *           "description": "Heavy-duty roller hardware, 2 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1087.5",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-STD",
                     *           "component": "hardware",
                     *           "description": "Roller hardware, 1.5 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "725",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-BATTERY",
                     *           "component": "motor",
                     *           "description": "Rechargeable battery motor with remote",
                     *           "unit": "each",
                     *           "unit_cost_cents": "23900",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-WIRED",
                     *           "component": "motor",
                     *           "description": "Hard-wired 120 V AC motor",
                     *           "unit": "each",
                     *           "unit_cost_cents": "19850",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-CASSETTE",
                     *           "component": "trim",
                     *           "description": "Aluminium cassette valance",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1475",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-FASCIA",
                     *           "component": "trim",
                     *           "description": "Fascia cover, fabric-wrapped",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "862.5",
                     *           "active": true
                     *         }
                     *       ],
                     *       "labour_tiers": [
                     *         {
                     *           "code": "PREMIUM",
                     *           "name": "Premium installation",
                     *           "hourly_rate_cents": 11500,
                     *           "multiplier": "1.25"
                     *         },
                     *         {
                     *           "code": "STANDARD",
                     *           "name": "Standard installation",
                     *           "hourly_rate_cents": 8500,
                     *           "multiplier": "1"
                     *         }
                     *       ],
                     *       "products": [
                     *         {
                     *           "sku": "ROLLER-BLACKOUT",
                     *           "name": "Blackout roller shade",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *           "name": "Blackout roller shade, heavy duty, with fascia",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-HD",
                     *           "trim_sku": "TRIM-FASCIA",
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-SCREEN",
                     *           "name": "Solar screen roller shade",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-SCREEN-CASSETTE",
                     *           "name": "Solar screen roller shade in a cassette",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": "TRIM-CASSETTE",
                     *           "active": true
                     *         }
                     *       ],
                     *       "changes": [
                     *         {
                     *           "entity": "sku",
                     *           "key": "FAB-BLACKOUT",
                     *           "field": "unit_cost_cents",
                     *           "before": "396.75",
                     *           "after": "426.51"
                     *         },
                     *         {
                     *           "entity": "sku",
                     *           "key": "FAB-SCREEN-3",
                     *           "field": "unit_cost_cents",
                     *           "before": "437.5",
                     *           "after": "470.3"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["PricebookRevision"];
                };
            };
            /** @description The new revision, with its changes */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *       "revision": "2026-11-26T15:04:05.123Z",
                     *       "effective_from": "2026-11-30T05:00:00.000Z",
                     *       "current": false,
                     *       "settings": {
                     *         "margin_floor": "0.35",
                     *         "fabric_waste_factor": "0.1",
                     *         "labour_base_hours_per_unit": "0.75",
                     *         "labour_hours_per_square_foot": "0.02",
                     *         "labour_motorisation_hours": "0.5",
                     *         "tube_deduction_inches": "1.125",
                     *         "hembar_deduction_inches": "1.375",
                     *         "fabric_width_deduction_inches": "1.5",
                     *         "fabric_drop_allowance_inches": "12"
                     *       },
                     *       "skus": [
                     *         {
                     *           "code": "FAB-BLACKOUT",
                     *           "component": "fabric",
                     *           "description": "Blackout fabric, vinyl-backed",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "426.51",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "FAB-SCREEN-3",
                     *           "component": "fabric",
                     *           "description": "Solar screen fabric, 3% openness",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "470.3",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-HD",
                     *           "component": "hardware",
                     *           "description": "Heavy-duty roller hardware, 2 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1087.5",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-STD",
                     *           "component": "hardware",
                     *           "description": "Roller hardware, 1.5 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "725",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-BATTERY",
                     *           "component": "motor",
                     *           "description": "Rechargeable battery motor with remote",
                     *           "unit": "each",
                     *           "unit_cost_cents": "23900",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-WIRED",
                     *           "component": "motor",
                     *           "description": "Hard-wired 120 V AC motor",
                     *           "unit": "each",
                     *           "unit_cost_cents": "19850",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-CASSETTE",
                     *           "component": "trim",
                     *           "description": "Aluminium cassette valance",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1475",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-FASCIA",
                     *           "component": "trim",
                     *           "description": "Fascia cover, fabric-wrapped",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "862.5",
                     *           "active": true
                     *         }
                     *       ],
                     *       "labour_tiers": [
                     *         {
                     *           "code": "PREMIUM",
                     *           "name": "Premium installation",
                     *           "hourly_rate_cents": 11500,
                     *           "multiplier": "1.25"
                     *         },
                     *         {
                     *           "code": "STANDARD",
                     *           "name": "Standard installation",
                     *           "hourly_rate_cents": 8500,
                     *           "multiplier": "1"
                     *         }
                     *       ],
                     *       "products": [
                     *         {
                     *           "sku": "ROLLER-BLACKOUT",
                     *           "name": "Blackout roller shade",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *           "name": "Blackout roller shade, heavy duty, with fascia",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-HD",
                     *           "trim_sku": "TRIM-FASCIA",
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-SCREEN",
                     *           "name": "Solar screen roller shade",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-SCREEN-CASSETTE",
                     *           "name": "Solar screen roller shade in a cassette",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": "TRIM-CASSETTE",
                     *           "active": true
                     *         }
                     *       ],
                     *       "changes": [
                     *         {
                     *           "entity": "sku",
                     *           "key": "FAB-BLACKOUT",
                     *           "field": "unit_cost_cents",
                     *           "before": "396.75",
                     *           "after": "426.51"
                     *         },
                     *         {
                     *           "entity": "sku",
                     *           "key": "FAB-SCREEN-3",
                     *           "field": "unit_cost_cents",
                     *           "before": "437.5",
                     *           "after": "470.3"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["PricebookRevision"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `base_revision` is not the newest revision */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "`base_revision` is not the newest revision",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "base_revision": "Invalid input: expected string, received undefined",
                     *         "changes": "Invalid input: expected array, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getPricebookRevision: {
        parameters: {
            query?: {
                /** @description Another revision: adds `changes` from it to this one */
                compare_to?: string;
            };
            header?: never;
            path: {
                id: string;
                /** @description The revision stamp, as `revision` answers it (`2026-11-26T15:04:05.123Z`) */
                revision: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revision */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *       "revision": "2026-11-26T15:04:05.123Z",
                     *       "effective_from": "2026-11-30T05:00:00.000Z",
                     *       "current": false,
                     *       "settings": {
                     *         "margin_floor": "0.35",
                     *         "fabric_waste_factor": "0.1",
                     *         "labour_base_hours_per_unit": "0.75",
                     *         "labour_hours_per_square_foot": "0.02",
                     *         "labour_motorisation_hours": "0.5",
                     *         "tube_deduction_inches": "1.125",
                     *         "hembar_deduction_inches": "1.375",
                     *         "fabric_width_deduction_inches": "1.5",
                     *         "fabric_drop_allowance_inches": "12"
                     *       },
                     *       "skus": [
                     *         {
                     *           "code": "FAB-BLACKOUT",
                     *           "component": "fabric",
                     *           "description": "Blackout fabric, vinyl-backed",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "426.51",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "FAB-SCREEN-3",
                     *           "component": "fabric",
                     *           "description": "Solar screen fabric, 3% openness",
                     *           "unit": "sq_ft",
                     *           "unit_cost_cents": "470.3",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-HD",
                     *           "component": "hardware",
                     *           "description": "Heavy-duty roller hardware, 2 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1087.5",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "HW-ROLLER-STD",
                     *           "component": "hardware",
                     *           "description": "Roller hardware, 1.5 in tube with brackets and clutch",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "725",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-BATTERY",
                     *           "component": "motor",
                     *           "description": "Rechargeable battery motor with remote",
                     *           "unit": "each",
                     *           "unit_cost_cents": "23900",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "MTR-WIRED",
                     *           "component": "motor",
                     *           "description": "Hard-wired 120 V AC motor",
                     *           "unit": "each",
                     *           "unit_cost_cents": "19850",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-CASSETTE",
                     *           "component": "trim",
                     *           "description": "Aluminium cassette valance",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "1475",
                     *           "active": true
                     *         },
                     *         {
                     *           "code": "TRIM-FASCIA",
                     *           "component": "trim",
                     *           "description": "Fascia cover, fabric-wrapped",
                     *           "unit": "linear_ft",
                     *           "unit_cost_cents": "862.5",
                     *           "active": true
                     *         }
                     *       ],
                     *       "labour_tiers": [
                     *         {
                     *           "code": "PREMIUM",
                     *           "name": "Premium installation",
                     *           "hourly_rate_cents": 11500,
                     *           "multiplier": "1.25"
                     *         },
                     *         {
                     *           "code": "STANDARD",
                     *           "name": "Standard installation",
                     *           "hourly_rate_cents": 8500,
                     *           "multiplier": "1"
                     *         }
                     *       ],
                     *       "products": [
                     *         {
                     *           "sku": "ROLLER-BLACKOUT",
                     *           "name": "Blackout roller shade",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *           "name": "Blackout roller shade, heavy duty, with fascia",
                     *           "fabric_sku": "FAB-BLACKOUT",
                     *           "hardware_sku": "HW-ROLLER-HD",
                     *           "trim_sku": "TRIM-FASCIA",
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-SCREEN",
                     *           "name": "Solar screen roller shade",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": null,
                     *           "active": true
                     *         },
                     *         {
                     *           "sku": "ROLLER-SCREEN-CASSETTE",
                     *           "name": "Solar screen roller shade in a cassette",
                     *           "fabric_sku": "FAB-SCREEN-3",
                     *           "hardware_sku": "HW-ROLLER-STD",
                     *           "trim_sku": "TRIM-CASSETTE",
                     *           "active": true
                     *         }
                     *       ],
                     *       "changes": [
                     *         {
                     *           "entity": "sku",
                     *           "key": "FAB-BLACKOUT",
                     *           "field": "unit_cost_cents",
                     *           "before": "396.75",
                     *           "after": "426.51"
                     *         },
                     *         {
                     *           "entity": "sku",
                     *           "key": "FAB-SCREEN-3",
                     *           "field": "unit_cost_cents",
                     *           "before": "437.5",
                     *           "after": "470.3"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["PricebookRevision"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such revision */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such revision",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    exportPricebookCsv: {
        parameters: {
            query?: {
                /** @description Omitted: the current revision */
                revision?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The CSV file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example code,component,description,unit,unit_cost_cents,active
                     *     FAB-BLACKOUT,fabric,"Blackout fabric, vinyl-backed",sq_ft,396.75,true
                     *     FAB-SCREEN-3,fabric,"Solar screen fabric, 3% openness",sq_ft,437.5,true
                     *     HW-ROLLER-HD,hardware,"Heavy-duty roller hardware, 2 in tube with brackets and clutch",linear_ft,1087.5,true
                     *     HW-ROLLER-STD,hardware,"Roller hardware, 1.5 in tube with brackets and clutch",linear_ft,725,true
                     *     MTR-BATTERY,motor,Rechargeable battery motor with remote,each,23900,true
                     *     MTR-WIRED,motor,Hard-wired 120 V AC motor,each,19850,true
                     *     TRIM-CASSETTE,trim,Aluminium cassette valance,linear_ft,1475,true
                     *     TRIM-FASCIA,trim,"Fascia cover, fabric-wrapped",linear_ft,862.5,true
                     */
                    "text/csv": string;
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    importPricebookCsv: {
        parameters: {
            query?: {
                /** @description Defaults to true: validate and answer a result per row, write nothing */
                dry_run?: "true" | "false";
                /** @description When given, 409 unless it is the newest revision */
                base_revision?: string;
                /** @description ISO-8601, UTC */
                effective_from?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description The CSV file */
        requestBody: {
            content: {
                /**
                 * @example code,component,description,unit,unit_cost_cents,active
                 *     FAB-SCREEN-3,fabric,"Solar screen fabric, 3% openness",sq_ft,470.3,true
                 *     FAB-LINEN,fabric,"Linen-look fabric, light filtering",sq_ft,412.25,true
                 *     TRIM-FASCIA,trim,"Fascia cover, fabric-wrapped",linear_ft,862.5,true
                 */
                "text/csv": string;
            };
        };
        responses: {
            /** @description Dry run (or a file that changes nothing): a result per row */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "dry_run": true,
                     *       "summary": {
                     *         "rows": 3,
                     *         "created": 1,
                     *         "updated": 1,
                     *         "unchanged": 1,
                     *         "refused": 0
                     *       },
                     *       "results": [
                     *         {
                     *           "row": 2,
                     *           "code": "FAB-SCREEN-3",
                     *           "result": "updated"
                     *         },
                     *         {
                     *           "row": 3,
                     *           "code": "FAB-LINEN",
                     *           "result": "created"
                     *         },
                     *         {
                     *           "row": 4,
                     *           "code": "TRIM-FASCIA",
                     *           "result": "unchanged"
                     *         }
                     *       ],
                     *       "revision": null
                     *     }
                     */
                    "application/json": components["schemas"]["PricebookImportResult"];
                };
            };
            /** @description Published: one revision for the whole file */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "dry_run": false,
                     *       "summary": {
                     *         "rows": 3,
                     *         "created": 1,
                     *         "updated": 1,
                     *         "unchanged": 1,
                     *         "refused": 0
                     *       },
                     *       "results": [
                     *         {
                     *           "row": 2,
                     *           "code": "FAB-SCREEN-3",
                     *           "result": "updated"
                     *         },
                     *         {
                     *           "row": 3,
                     *           "code": "FAB-LINEN",
                     *           "result": "created"
                     *         },
                     *         {
                     *           "row": 4,
                     *           "code": "TRIM-FASCIA",
                     *           "result": "unchanged"
                     *         }
                     *       ],
                     *       "revision": {
                     *         "id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                     *         "revision": "2026-11-26T15:04:05.123Z",
                     *         "effective_from": "2026-11-30T05:00:00.000Z",
                     *         "current": false,
                     *         "settings": {
                     *           "margin_floor": "0.35",
                     *           "fabric_waste_factor": "0.1",
                     *           "labour_base_hours_per_unit": "0.75",
                     *           "labour_hours_per_square_foot": "0.02",
                     *           "labour_motorisation_hours": "0.5",
                     *           "tube_deduction_inches": "1.125",
                     *           "hembar_deduction_inches": "1.375",
                     *           "fabric_width_deduction_inches": "1.5",
                     *           "fabric_drop_allowance_inches": "12"
                     *         },
                     *         "skus": [
                     *           {
                     *             "code": "FAB-BLACKOUT",
                     *             "component": "fabric",
                     *             "description": "Blackout fabric, vinyl-backed",
                     *             "unit": "sq_ft",
                     *             "unit_cost_cents": "426.51",
                     *             "active": true
                     *           },
                     *           {
                     *             "code": "FAB-SCREEN-3",
                     *             "component": "fabric",
                     *             "description": "Solar screen fabric, 3% openness",
                     *             "unit": "sq_ft",
                     *             "unit_cost_cents": "470.3",
                     *             "active": true
                     *           },
                     *           {
                     *             "code": "HW-ROLLER-HD",
                     *             "component": "hardware",
                     *             "description": "Heavy-duty roller hardware, 2 in tube with brackets and clutch",
                     *             "unit": "linear_ft",
                     *             "unit_cost_cents": "1087.5",
                     *             "active": true
                     *           },
                     *           {
                     *             "code": "HW-ROLLER-STD",
                     *             "component": "hardware",
                     *             "description": "Roller hardware, 1.5 in tube with brackets and clutch",
                     *             "unit": "linear_ft",
                     *             "unit_cost_cents": "725",
                     *             "active": true
                     *           },
                     *           {
                     *             "code": "MTR-BATTERY",
                     *             "component": "motor",
                     *             "description": "Rechargeable battery motor with remote",
                     *             "unit": "each",
                     *             "unit_cost_cents": "23900",
                     *             "active": true
                     *           },
                     *           {
                     *             "code": "MTR-WIRED",
                     *             "component": "motor",
                     *             "description": "Hard-wired 120 V AC motor",
                     *             "unit": "each",
                     *             "unit_cost_cents": "19850",
                     *             "active": true
                     *           },
                     *           {
                     *             "code": "TRIM-CASSETTE",
                     *             "component": "trim",
                     *             "description": "Aluminium cassette valance",
                     *             "unit": "linear_ft",
                     *             "unit_cost_cents": "1475",
                     *             "active": true
                     *           },
                     *           {
                     *             "code": "TRIM-FASCIA",
                     *             "component": "trim",
                     *             "description": "Fascia cover, fabric-wrapped",
                     *             "unit": "linear_ft",
                     *             "unit_cost_cents": "862.5",
                     *             "active": true
                     *           }
                     *         ],
                     *         "labour_tiers": [
                     *           {
                     *             "code": "PREMIUM",
                     *             "name": "Premium installation",
                     *             "hourly_rate_cents": 11500,
                     *             "multiplier": "1.25"
                     *           },
                     *           {
                     *             "code": "STANDARD",
                     *             "name": "Standard installation",
                     *             "hourly_rate_cents": 8500,
                     *             "multiplier": "1"
                     *           }
                     *         ],
                     *         "products": [
                     *           {
                     *             "sku": "ROLLER-BLACKOUT",
                     *             "name": "Blackout roller shade",
                     *             "fabric_sku": "FAB-BLACKOUT",
                     *             "hardware_sku": "HW-ROLLER-STD",
                     *             "trim_sku": null,
                     *             "active": true
                     *           },
                     *           {
                     *             "sku": "ROLLER-BLACKOUT-HD-FASCIA",
                     *             "name": "Blackout roller shade, heavy duty, with fascia",
                     *             "fabric_sku": "FAB-BLACKOUT",
                     *             "hardware_sku": "HW-ROLLER-HD",
                     *             "trim_sku": "TRIM-FASCIA",
                     *             "active": true
                     *           },
                     *           {
                     *             "sku": "ROLLER-SCREEN",
                     *             "name": "Solar screen roller shade",
                     *             "fabric_sku": "FAB-SCREEN-3",
                     *             "hardware_sku": "HW-ROLLER-STD",
                     *             "trim_sku": null,
                     *             "active": true
                     *           },
                     *           {
                     *             "sku": "ROLLER-SCREEN-CASSETTE",
                     *             "name": "Solar screen roller shade in a cassette",
                     *             "fabric_sku": "FAB-SCREEN-3",
                     *             "hardware_sku": "HW-ROLLER-STD",
                     *             "trim_sku": "TRIM-CASSETTE",
                     *             "active": true
                     *           }
                     *         ],
                     *         "changes": [
                     *           {
                     *             "entity": "sku",
                     *             "key": "FAB-BLACKOUT",
                     *             "field": "unit_cost_cents",
                     *             "before": "396.75",
                     *             "after": "426.51"
                     *           },
                     *           {
                     *             "entity": "sku",
                     *             "key": "FAB-SCREEN-3",
                     *             "field": "unit_cost_cents",
                     *             "before": "437.5",
                     *             "after": "470.3"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["PricebookImportResult"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `base_revision` is not the newest revision */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "`base_revision` is not the newest revision",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not text/csv */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request body encoding is not supported.",
                     *       "status": 415,
                     *       "detail": "The body is not text/csv",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWorkOrders: {
        parameters: {
            query?: {
                status?: "PENDING" | "DISPATCHED" | "COMPLETED" | "CANCELLED";
                /** @description YYYY-MM-DD */
                scheduledOn?: string;
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of work orders */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "status": "DISPATCHED",
                     *           "scheduled_date": "2026-12-03T00:00:00.000Z",
                     *           "site_address": "12 Elm St, Toronto ON M5V 2T6",
                     *           "notes": "Side gate code 4512; two windows on the second floor.",
                     *           "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                     *           "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *           "dispatched_at": "2026-12-02T17:10:00.000Z",
                     *           "completed_at": null
                     *         },
                     *         {
                     *           "id": "c7e9a1b3-5d7f-4a2c-8e4b-6d8f0a2c4e6a",
                     *           "status": "PENDING",
                     *           "scheduled_date": "2026-12-04T00:00:00.000Z",
                     *           "site_address": "88 Queen St W, Toronto ON M5H 2N2",
                     *           "notes": null,
                     *           "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                     *           "quote_id": null,
                     *           "dispatched_at": null,
                     *           "completed_at": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["WorkOrderList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWorkOrder: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "quoteId": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *       "assignedTechnicianId": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *       "scheduledDate": "2026-12-03",
                 *       "siteAddress": "12 Elm St, Toronto ON M5V 2T6",
                 *       "notes": "Side gate code 4512; two windows on the second floor."
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    quoteId?: string;
                    /**
                     * Format: uuid
                     * @description The customer a job without a quote is invoiced to at completion; required before such a job completes
                     */
                    customerId?: string;
                    /** Format: uuid */
                    assignedTechnicianId?: string;
                    /**
                     * Format: date
                     * @description YYYY-MM-DD
                     */
                    scheduledDate?: string;
                    siteAddress?: string;
                    notes?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "status": "PENDING",
                     *       "scheduled_date": "2026-12-03T00:00:00.000Z",
                     *       "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f"
                     *     }
                     */
                    "application/json": components["schemas"]["WorkOrderCreated"];
                };
            };
            /** @description The assignee is not a TECHNICIAN or is deactivated */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "The assignee is not a TECHNICIAN or is deactivated",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description quoteId or assignedTechnicianId is not in the tenant (the message names which) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "quoteId or assignedTechnicianId is not in the tenant (the message names which)",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWorkOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The work order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "status": "DISPATCHED",
                     *       "scheduled_date": "2026-12-03T00:00:00.000Z",
                     *       "site_address": "12 Elm St, Toronto ON M5V 2T6",
                     *       "notes": "Side gate code 4512; two windows on the second floor.",
                     *       "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                     *       "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "dispatched_at": "2026-12-02T17:10:00.000Z",
                     *       "completed_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["WorkOrder"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A technician who is not the one assigned */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "A technician who is not the one assigned",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such work order in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such work order in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    editWorkOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "scheduledDate": "2026-12-10",
                 *       "notes": "Customer asked for the afternoon"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date
                     * @description The day; null unschedules. A DISPATCHED work order moved to another day goes back to PENDING.
                     */
                    scheduledDate?: string | null;
                    /** @description The site’s address; null clears it */
                    siteAddress?: string | null;
                    /** @description Replaces the notes; null clears them */
                    notes?: string | null;
                };
            };
        };
        responses: {
            /** @description The work order after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "status": "DISPATCHED",
                     *       "scheduled_date": "2026-12-03T00:00:00.000Z",
                     *       "site_address": "12 Elm St, Toronto ON M5V 2T6",
                     *       "notes": "Side gate code 4512; two windows on the second floor.",
                     *       "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                     *       "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *       "dispatched_at": "2026-12-02T17:10:00.000Z",
                     *       "completed_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["WorkOrder"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such work order in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such work order in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The work order is COMPLETED or CANCELLED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "The work order is COMPLETED or CANCELLED",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "body": "Send at least one of scheduledDate, siteAddress, notes"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWorkOrderHistory: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of history entries */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "d1e3f5a7-b9c1-4d3e-8f5a-7b9c1d3e5f7a",
                     *           "from_status": null,
                     *           "to_status": "PENDING",
                     *           "changed_by": {
                     *             "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *             "name": "Avery Admin"
                     *           },
                     *           "changed_at": "2026-11-21T17:02:10.000Z",
                     *           "notes": "Side gate code 4512; two windows on the second floor."
                     *         },
                     *         {
                     *           "id": "e2f4a6b8-c0d2-4e4f-9a6b-8c0d2e4f6a8b",
                     *           "from_status": "PENDING",
                     *           "to_status": "DISPATCHED",
                     *           "changed_by": {
                     *             "id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                     *             "name": "Avery Admin"
                     *           },
                     *           "changed_at": "2026-12-02T17:10:00.000Z",
                     *           "notes": null
                     *         },
                     *         {
                     *           "id": "f3a5b7c9-d1e3-4f5a-8b7c-9d1e3f5a7b9c",
                     *           "from_status": "DISPATCHED",
                     *           "to_status": "DISPATCHED",
                     *           "changed_by": {
                     *             "id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                     *             "name": "Taylor Tech"
                     *           },
                     *           "changed_at": "2026-12-03T13:20:45.000Z",
                     *           "notes": "On site; the bedroom bracket needs a longer screw."
                     *         },
                     *         {
                     *           "id": "a4b6c8d0-e2f4-4a6b-9c8d-0e2f4a6b8c0d",
                     *           "from_status": "DISPATCHED",
                     *           "to_status": "COMPLETED",
                     *           "changed_by": {
                     *             "id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                     *             "name": "Taylor Tech"
                     *           },
                     *           "changed_at": "2026-12-03T15:42:18.000Z",
                     *           "notes": "Installed, customer happy"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["WorkOrderHistory"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A technician who is not the one assigned */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "A technician who is not the one assigned",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such work order in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such work order in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWorkOrderStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "COMPLETED",
                 *       "notes": "Installed, customer happy"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    status: "PENDING" | "DISPATCHED" | "COMPLETED" | "CANCELLED";
                    notes?: string;
                };
            };
        };
        responses: {
            /** @description Moved, or unchanged for a repeated status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "status": "COMPLETED",
                     *       "unchanged": false
                     *     }
                     */
                    "application/json": components["schemas"]["WorkOrderStatusResult"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A technician who is not the one assigned, or SALES */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "A technician who is not the one assigned, or SALES",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such work order in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such work order in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A move the work order status table does not permit */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "A move the work order status table does not permit",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "status": "Invalid option: expected one of \"PENDING\"|\"DISPATCHED\"|\"COMPLETED\"|\"CANCELLED\""
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getQuoteInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoice */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "quote_number": 1042,
                     *       "invoice_id": "in_1QdXk2Lz8vTn4pRa9sEyWbHc",
                     *       "number": "A1B2C3D4-0001",
                     *       "status": "open",
                     *       "mode": "test",
                     *       "currency": "cad",
                     *       "subtotal_cents": 240084,
                     *       "tax_cents": 31211,
                     *       "total_cents": 271295,
                     *       "amount_due_cents": 271295,
                     *       "created_at": "2026-11-21T16:45:03.000Z",
                     *       "hosted_invoice_url": "https://invoice.stripe.com/i/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh",
                     *       "invoice_pdf_url": "https://pay.stripe.com/invoice/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh/pdf",
                     *       "lines": [
                     *         {
                     *           "description": "Living room: 2 × 72.5\" × 60\" roller shade",
                     *           "amount_cents": 203524,
                     *           "is_tax": false
                     *         },
                     *         {
                     *           "description": "Bedroom: 1 × 35.25\" × 48\" roller shade",
                     *           "amount_cents": 36560,
                     *           "is_tax": false
                     *         },
                     *         {
                     *           "description": "HST (13%)",
                     *           "amount_cents": 31211,
                     *           "is_tax": true
                     *         }
                     *       ],
                     *       "created": false
                     *     }
                     */
                    "application/json": components["schemas"]["InvoiceView"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such quote in the tenant, or no invoice recorded */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such quote in the tenant, or no invoice recorded",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The payments secret key is not set */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "provider_error",
                     *         "message": "The payments secret key is not set",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    ensureQuoteInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Already invoiced: the invoice, unchanged (created: false) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "quote_number": 1042,
                     *       "invoice_id": "in_1QdXk2Lz8vTn4pRa9sEyWbHc",
                     *       "number": "A1B2C3D4-0001",
                     *       "status": "open",
                     *       "mode": "test",
                     *       "currency": "cad",
                     *       "subtotal_cents": 240084,
                     *       "tax_cents": 31211,
                     *       "total_cents": 271295,
                     *       "amount_due_cents": 271295,
                     *       "created_at": "2026-11-21T16:45:03.000Z",
                     *       "hosted_invoice_url": "https://invoice.stripe.com/i/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh",
                     *       "invoice_pdf_url": "https://pay.stripe.com/invoice/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh/pdf",
                     *       "lines": [
                     *         {
                     *           "description": "Living room: 2 × 72.5\" × 60\" roller shade",
                     *           "amount_cents": 203524,
                     *           "is_tax": false
                     *         },
                     *         {
                     *           "description": "Bedroom: 1 × 35.25\" × 48\" roller shade",
                     *           "amount_cents": 36560,
                     *           "is_tax": false
                     *         },
                     *         {
                     *           "description": "HST (13%)",
                     *           "amount_cents": 31211,
                     *           "is_tax": true
                     *         }
                     *       ],
                     *       "created": false
                     *     }
                     */
                    "application/json": components["schemas"]["InvoiceView"];
                };
            };
            /** @description Invoice written and finalised (created: true) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "quote_number": 1042,
                     *       "invoice_id": "in_1QdXk2Lz8vTn4pRa9sEyWbHc",
                     *       "number": "A1B2C3D4-0001",
                     *       "status": "open",
                     *       "mode": "test",
                     *       "currency": "cad",
                     *       "subtotal_cents": 240084,
                     *       "tax_cents": 31211,
                     *       "total_cents": 271295,
                     *       "amount_due_cents": 271295,
                     *       "created_at": "2026-11-21T16:45:03.000Z",
                     *       "hosted_invoice_url": "https://invoice.stripe.com/i/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh",
                     *       "invoice_pdf_url": "https://pay.stripe.com/invoice/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh/pdf",
                     *       "lines": [
                     *         {
                     *           "description": "Living room: 2 × 72.5\" × 60\" roller shade",
                     *           "amount_cents": 203524,
                     *           "is_tax": false
                     *         },
                     *         {
                     *           "description": "Bedroom: 1 × 35.25\" × 48\" roller shade",
                     *           "amount_cents": 36560,
                     *           "is_tax": false
                     *         },
                     *         {
                     *           "description": "HST (13%)",
                     *           "amount_cents": 31211,
                     *           "is_tax": true
                     *         }
                     *       ],
                     *       "created": true
                     *     }
                     */
                    "application/json": components["schemas"]["InvoiceView"];
                };
            };
            /** @description The quote is not approved */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "The quote is not approved",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such quote in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The provider refused; the attempt is recorded and the call can be repeated */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "provider_error",
                     *         "message": "The provider refused; the attempt is recorded and the call can be repeated",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The payments secret key is not set */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "provider_error",
                     *         "message": "The payments secret key is not set",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createCheckoutSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "return_url": "https://shades.example.test/quotes"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An origin on CHECKOUT_RETURN_ORIGINS; omitted: the first one
                     */
                    return_url?: string;
                };
            };
        };
        responses: {
            /** @description The open session, reused */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "session_id": "cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ",
                     *       "quote_number": 1042,
                     *       "url": "https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ",
                     *       "status": "open",
                     *       "payment_status": "unpaid",
                     *       "amount_total_cents": 271295,
                     *       "currency": "cad",
                     *       "expires_at": "2026-11-22T16:50:00.000Z",
                     *       "reused": true
                     *     }
                     */
                    "application/json": components["schemas"]["CheckoutSession"];
                };
            };
            /** @description A new session */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "session_id": "cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ",
                     *       "quote_number": 1042,
                     *       "url": "https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ",
                     *       "status": "open",
                     *       "payment_status": "unpaid",
                     *       "amount_total_cents": 271295,
                     *       "currency": "cad",
                     *       "expires_at": "2026-11-22T16:50:00.000Z",
                     *       "reused": false
                     *     }
                     */
                    "application/json": components["schemas"]["CheckoutSession"];
                };
            };
            /** @description Not approved, or return_url not on the allowlist */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "Not approved, or return_url not on the allowlist",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such quote in the tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such quote in the tenant",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Already paid */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "Already paid",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The payments secret key is not set */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "provider_error",
                     *         "message": "The payments secret key is not set",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receivePaymentsEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">; the provider’s own Stripe-Signature header is accepted too */
                "payments-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The provider's event object, verified over its exact bytes */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_1QdXq7Lz8vTn4pRaKf3mZ2Yt",
                 *       "object": "event",
                 *       "type": "invoice.paid",
                 *       "created": 1795430000,
                 *       "livemode": false,
                 *       "data": {
                 *         "object": {
                 *           "id": "in_1QdXk2Lz8vTn4pRa9sEyWbHc",
                 *           "object": "invoice",
                 *           "status": "paid",
                 *           "status_transitions": {
                 *             "paid_at": 1795429990
                 *           },
                 *           "metadata": {
                 *             "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *             "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    id: string;
                    /** @description invoice.paid and a paid checkout.session.completed set paid_at on the quote; others are acknowledged */
                    type: string;
                    created?: number;
                    data: {
                        object: {
                            /** @description organization_id and quote_id, as our invoices and sessions carry them */
                            metadata?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Received; handled says whether it was acted on */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true,
                     *       "handled": true
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookReceipt"];
                };
            };
            /** @description Signature verification failed or the body is not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "Signature verification failed or the body is not JSON",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The payments webhook secret is not set */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "provider_error",
                     *         "message": "The payments webhook secret is not set",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listIntegrations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entry per provider, in registry order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "provider": "PAYMENTS",
                     *           "slug": "payments",
                     *           "display_name": "Payments",
                     *           "configured": true,
                     *           "configuration": {
                     *             "missing_environment": [],
                     *             "awaiting_tenant_consent": false,
                     *             "summary": "Configured; payments run through the platform's own account."
                     *           },
                     *           "connection": null
                     *         },
                     *         {
                     *           "provider": "ACCOUNTING",
                     *           "slug": "accounting",
                     *           "display_name": "Accounting",
                     *           "configured": true,
                     *           "configuration": {
                     *             "missing_environment": [],
                     *             "awaiting_tenant_consent": false,
                     *             "summary": "Connected: approved quotes sync to this workspace’s account."
                     *           },
                     *           "connection": {
                     *             "status": "CONNECTED",
                     *             "external_account_id": "9341452879364510",
                     *             "instance_url": "https://sandbox-quickbooks.api.intuit.com",
                     *             "scopes": [
                     *               "com.intuit.quickbooks.accounting"
                     *             ],
                     *             "connected_at": "2026-11-18T14:02:11.000Z",
                     *             "last_sync_at": "2026-11-21T16:45:09.000Z",
                     *             "last_error": null,
                     *             "access_token_expires_at": "2026-11-23T10:15:00.000Z",
                     *             "refresh_token_expires_at": "2027-02-26T14:02:11.000Z"
                     *           }
                     *         },
                     *         {
                     *           "provider": "CRM",
                     *           "slug": "crm",
                     *           "display_name": "CRM",
                     *           "configured": true,
                     *           "configuration": {
                     *             "missing_environment": [],
                     *             "awaiting_tenant_consent": true,
                     *             "summary": "Configured on the platform; each workspace connects its own account."
                     *           },
                     *           "connection": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["IntegrationList"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSyncRecords: {
        parameters: {
            query?: {
                provider?: "payments" | "accounting" | "crm";
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sync records */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e1c3a5b7-9d2f-4e6a-8b0c-2d4f6a8c0e3b",
                     *           "provider": "PAYMENTS",
                     *           "entity_type": "invoice",
                     *           "local_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *           "external_id": "in_1QdXk2Lz8vTn4pRa9sEyWbHc",
                     *           "status": "SUCCEEDED",
                     *           "attempts": 1,
                     *           "amount_cents": 375058,
                     *           "last_error": null,
                     *           "synced_at": "2026-11-21T16:45:05.000Z"
                     *         },
                     *         {
                     *           "id": "f2d4b6c8-0e3a-4f7b-9c1d-3e5a7b9d1f4c",
                     *           "provider": "ACCOUNTING",
                     *           "entity_type": "invoice",
                     *           "local_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *           "external_id": "148",
                     *           "status": "SUCCEEDED",
                     *           "attempts": 1,
                     *           "amount_cents": 375058,
                     *           "last_error": null,
                     *           "synced_at": "2026-11-21T16:45:07.000Z"
                     *         },
                     *         {
                     *           "id": "a3e5c7d9-1f4b-4a8c-8d2e-4f6b8c0e2a5d",
                     *           "provider": "CRM",
                     *           "entity_type": "opportunity",
                     *           "local_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                     *           "external_id": null,
                     *           "status": "SKIPPED",
                     *           "attempts": 0,
                     *           "amount_cents": null,
                     *           "last_error": "CRM provider not connected",
                     *           "synced_at": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["SyncRecordList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listProviderSyncRuns: {
        parameters: {
            query?: {
                provider?: "payments" | "accounting" | "crm";
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sync runs */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f",
                     *           "provider": "ACCOUNTING",
                     *           "workflow_id": "provider-sync-8a0e4b9c-2f6d-4e1a-9b3c-5d7e9f1a3b5c-accounting-2026-11-21T16:45:00Z",
                     *           "started_at": "2026-11-21T16:45:00.120Z",
                     *           "finished_at": "2026-11-21T16:45:01.480Z",
                     *           "seen": 3,
                     *           "applied": 1,
                     *           "watermark_before": "2026-11-21T16:29:58.000Z",
                     *           "watermark_after": "2026-11-21T16:44:12.000Z",
                     *           "error": null
                     *         },
                     *         {
                     *           "id": "d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a",
                     *           "provider": "PAYMENTS",
                     *           "workflow_id": "provider-sync-8a0e4b9c-2f6d-4e1a-9b3c-5d7e9f1a3b5c-payments-2026-11-21T16:45:00Z",
                     *           "started_at": "2026-11-21T16:45:00.090Z",
                     *           "finished_at": "2026-11-21T16:45:09.310Z",
                     *           "seen": 0,
                     *           "applied": 0,
                     *           "watermark_before": "evt_1QabcDEFghiJKLmn",
                     *           "watermark_after": "evt_1QabcDEFghiJKLmn",
                     *           "error": "payments provider unavailable: 503 api_error: injected outage"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["SyncRunList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    connectIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description payments, accounting or crm */
                provider: "payments" | "accounting" | "crm";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Open authorize_url in a browser to give consent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "provider": "ACCOUNTING",
                     *       "authorize_url": "https://appcenter.intuit.com/connect/oauth2?client_id=ABc1dEf2GhI3jKl4MnO5pQr6StU7vWx8YzA9bCd0&response_type=code&scope=com.intuit.quickbooks.accounting&redirect_uri=https%3A%2F%2Fshades.example.test%2Fapi%2Fv1%2Fintegrations%2Faccounting%2Fcallback&state=eyJhbGciOiJIUzI1NiJ9.c3RhdGU.c2ln",
                     *       "expires_in_seconds": 600
                     *     }
                     */
                    "application/json": components["schemas"]["IntegrationConnect"];
                };
            };
            /** @description payments (the platform’s own account), or the provider’s client credentials or the credential-encryption key are not configured */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "payments (the platform’s own account), or the provider’s client credentials or the credential-encryption key are not configured",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "provider": "Invalid option: expected one of \"payments\"|\"accounting\"|\"crm\""
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    disconnectIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description payments, accounting or crm */
                provider: "payments" | "accounting" | "crm";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Disconnected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "provider": "ACCOUNTING",
                     *       "status": "DISCONNECTED"
                     *     }
                     */
                    "application/json": components["schemas"]["IntegrationDisconnect"];
                };
            };
            /** @description payments */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "Payments run through the platform’s own account; there is no workspace consent to give or take back.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "provider": "Invalid option: expected one of \"payments\"|\"accounting\"|\"crm\""
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    integrationCallback: {
        parameters: {
            query?: {
                code?: string;
                state?: string;
                realmId?: string;
                error?: string;
                error_description?: string;
            };
            header?: never;
            path: {
                /** @description accounting or crm */
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Consent completed (connected) or declined; the page says which */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Accounting connected</title></head>
                     *     <body>
                     *     <main data-outcome="connected">
                     *     <h1>Accounting connected</h1>
                     *     <p>Consent completed: Accounting account 9341452879364510 is now connected to your workspace. You can close this window.</p>
                     *     </main>
                     *     </body>
                     *     </html>
                     */
                    "text/html": string;
                };
            };
            /** @description State missing, expired, tampered with or replayed; or a parameter beyond the size limits */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>This link cannot be used</title></head>
                     *     <body>
                     *     <main data-outcome="bad_request">
                     *     <h1>This link cannot be used</h1>
                     *     <p>This consent link has expired. Start the connection again from the integrations settings.</p>
                     *     </main>
                     *     </body>
                     *     </html>
                     */
                    "text/html": string;
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Too many requests</title></head>
                     *     <body>
                     *     <main data-outcome="rate_limited">
                     *     <h1>Too many requests</h1>
                     *     <p>Please wait 42 seconds, then start the connection again from the integrations settings.</p>
                     *     </main>
                     *     </body>
                     *     </html>
                     */
                    "text/html": string;
                };
            };
            /** @description Unhandled error (a page quoting the request id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Something went wrong</title></head>
                     *     <body>
                     *     <main data-outcome="failed">
                     *     <h1>Something went wrong</h1>
                     *     <p>The connection could not be completed. Quote reference 4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f if you contact support.</p>
                     *     </main>
                     *     </body>
                     *     </html>
                     */
                    "text/html": string;
                };
            };
            /** @description The provider rejected the code exchange */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Accounting refused the connection</title></head>
                     *     <body>
                     *     <main data-outcome="provider_refused">
                     *     <h1>Accounting refused the connection</h1>
                     *     <p>The provider did not accept the authorisation code. Nothing was connected; try again from the integrations settings.</p>
                     *     </main>
                     *     </body>
                     *     </html>
                     */
                    "text/html": string;
                };
            };
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a",
                     *           "url": "https://erp.shades.example.test/hooks/shade-office",
                     *           "events": [
                     *             "quote.approved",
                     *             "work_order.completed"
                     *           ],
                     *           "description": "ERP: approved quotes and completed installs",
                     *           "status": "enabled",
                     *           "format": "core",
                     *           "api_version": null,
                     *           "disabled_at": null,
                     *           "disabled_reason": null,
                     *           "created_at": "2026-11-20T09:12:44.000Z",
                     *           "attempts_24h": 48,
                     *           "success_rate_24h": 0.9583
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://erp.shades.example.test/hooks/shade-office",
                 *       "events": [
                 *         "quote.approved",
                 *         "work_order.completed"
                 *       ],
                 *       "description": "ERP: approved quotes and completed installs"
                 *     }
                 */
                "application/json": {
                    /** Format: uri */
                    url: string;
                    /** @description Event names of the endpoint's format's catalogue (core: quote.approved, work_order.dispatched, work_order.completed, work_order.pending, work_order.cancelled, pricebook.published, dispatch.updated; field: job.dispatched, job.status_changed, job.completed, change_order.submitted, change_order.approved, change_order.rejected, quote.created, invoice.generated, dispatch.updated; events: quote.created, invoice.generated, pricebook.published, dispatch.updated), or ["*"] for all of them */
                    events: string[];
                    description?: string;
                    /**
                     * @description Fixed at registration: core, field or events (each its envelope, headers and retry schedule; docs/webhooks.md)
                     * @default core
                     * @enum {string}
                     */
                    format?: "core" | "field" | "events";
                };
            };
        };
        responses: {
            /** @description Registered */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a",
                     *       "url": "https://erp.shades.example.test/hooks/shade-office",
                     *       "events": [
                     *         "quote.approved",
                     *         "work_order.completed"
                     *       ],
                     *       "description": "ERP: approved quotes and completed installs",
                     *       "status": "enabled",
                     *       "format": "core",
                     *       "api_version": null,
                     *       "disabled_at": null,
                     *       "disabled_reason": null,
                     *       "created_at": "2026-11-20T09:12:44.000Z",
                     *       "attempts_24h": 48,
                     *       "success_rate_24h": 0.9583,
                     *       "secret": "whsec_Zm9yLWRvY3VtZW50YXRpb24tb25seS0wMTIzNDU2Nzg5YWI"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            /** @description Not https, or resolves to a non-public address, or no encryption key */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "Not https, or resolves to a non-public address, or no encryption key",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "url": "Invalid input: expected string, received undefined",
                     *             "events": "Invalid input: expected array, received undefined"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such endpoint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such endpoint",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "events": [
                 *         "*"
                 *       ],
                 *       "status": "enabled"
                 *     }
                 */
                "application/json": {
                    /** Format: uri */
                    url?: string;
                    /** @description Event names of the endpoint's format's catalogue (core: quote.approved, work_order.dispatched, work_order.completed, work_order.pending, work_order.cancelled, pricebook.published, dispatch.updated; field: job.dispatched, job.status_changed, job.completed, change_order.submitted, change_order.approved, change_order.rejected, quote.created, invoice.generated, dispatch.updated; events: quote.created, invoice.generated, pricebook.published, dispatch.updated), or ["*"] for all of them */
                    events?: string[];
                    description?: string | null;
                    /** @enum {string} */
                    status?: "enabled" | "disabled";
                };
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a",
                     *       "url": "https://erp.shades.example.test/hooks/shade-office",
                     *       "events": [
                     *         "*"
                     *       ],
                     *       "description": "ERP: approved quotes and completed installs",
                     *       "status": "enabled",
                     *       "format": "core",
                     *       "api_version": null,
                     *       "disabled_at": null,
                     *       "disabled_reason": null,
                     *       "created_at": "2026-11-20T09:12:44.000Z",
                     *       "attempts_24h": 48,
                     *       "success_rate_24h": 0.9583
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Refused URL */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "Refused URL",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such endpoint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such endpoint",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateWebhookEndpointSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Rotated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a",
                     *       "url": "https://erp.shades.example.test/hooks/shade-office",
                     *       "events": [
                     *         "quote.approved",
                     *         "work_order.completed"
                     *       ],
                     *       "description": "ERP: approved quotes and completed installs",
                     *       "status": "enabled",
                     *       "format": "core",
                     *       "api_version": null,
                     *       "disabled_at": null,
                     *       "disabled_reason": null,
                     *       "created_at": "2026-11-20T09:12:44.000Z",
                     *       "attempts_24h": 48,
                     *       "success_rate_24h": 0.9583,
                     *       "secret": "whsec_Zm9yLWRvY3VtZW50YXRpb24tb25seS0wMTIzNDU2Nzg5YWI"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such endpoint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such endpoint",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveryAttempts: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
                /** @description Only the attempts of this delivery */
                delivery_id?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of attempts */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "f6b8d0c2-4e6a-4f9b-83d5-7f9b1c3e5a0d",
                     *           "delivery_id": "e5a7c9b1-3d5f-4e8a-b2c4-6e8a0b2d4f9c",
                     *           "event_id": "d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b",
                     *           "event": "quote.approved",
                     *           "attempt": 2,
                     *           "outcome": "delivered",
                     *           "response_status": 200,
                     *           "error": null,
                     *           "duration_ms": 143,
                     *           "response_excerpt": "{\"ok\":true}",
                     *           "request": {
                     *             "headers": {
                     *               "host": "erp.shades.example.test",
                     *               "x-service-event": "quote.approved",
                     *               "x-service-delivery": "d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b",
                     *               "x-service-signature": "t=1763743507,v1=5d2c0f7e4b9a8c1d3e6f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d",
                     *               "content-type": "application/json",
                     *               "user-agent": "ShadeOffice-Webhooks/1.0",
                     *               "content-length": "142"
                     *             },
                     *             "body": "{\"event\":\"quote.approved\",\"id\":\"d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b\",\"organization_id\":\"0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c\",\"created_at\":\"2026-11-21T16:45:05.100Z\",\"data\":{}}"
                     *           },
                     *           "response": {
                     *             "status": 200,
                     *             "headers": {
                     *               "content-type": "application/json",
                     *               "content-length": "11"
                     *             },
                     *             "body_excerpt": "{\"ok\":true}",
                     *             "duration_ms": 143
                     *           },
                     *           "attempted_at": "2026-11-21T16:45:07.512Z"
                     *         },
                     *         {
                     *           "id": "a7c9e1d3-5f7b-4a0c-94e6-8a0c2d4f6b1e",
                     *           "delivery_id": "e5a7c9b1-3d5f-4e8a-b2c4-6e8a0b2d4f9c",
                     *           "event_id": "d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b",
                     *           "event": "quote.approved",
                     *           "attempt": 1,
                     *           "outcome": "retryable_failure",
                     *           "response_status": 503,
                     *           "error": null,
                     *           "duration_ms": 8000,
                     *           "response_excerpt": "Service Unavailable",
                     *           "request": {
                     *             "headers": {
                     *               "host": "erp.shades.example.test",
                     *               "x-service-event": "quote.approved",
                     *               "x-service-delivery": "d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b",
                     *               "x-service-signature": "t=1763743507,v1=5d2c0f7e4b9a8c1d3e6f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d",
                     *               "content-type": "application/json",
                     *               "user-agent": "ShadeOffice-Webhooks/1.0",
                     *               "content-length": "142"
                     *             },
                     *             "body": "{\"event\":\"quote.approved\",\"id\":\"d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b\",\"organization_id\":\"0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c\",\"created_at\":\"2026-11-21T16:45:05.100Z\",\"data\":{}}"
                     *           },
                     *           "response": {
                     *             "status": 503,
                     *             "headers": {
                     *               "content-type": "text/plain"
                     *             },
                     *             "body_excerpt": "Service Unavailable",
                     *             "duration_ms": 8000
                     *           },
                     *           "attempted_at": "2026-11-21T16:45:05.401Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDeliveryAttemptList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such endpoint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such endpoint",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendWebhookTestEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "quote.approved"
                 *     }
                 */
                "application/json": {
                    /** @description An event of the endpoint's format and subscription; by default its first */
                    event?: string;
                };
            };
        };
        responses: {
            /** @description The test delivery is under way */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "delivery_id": "6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b",
                     *       "event_id": "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f",
                     *       "event": "quote.approved",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookTestEventResult"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such endpoint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such endpoint",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The endpoint is disabled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "The endpoint is disabled",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An event the endpoint does not receive */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "An event the endpoint does not receive",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    recoverWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-11-20T06:00:00.000Z"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Re-send the failed events recorded at or after this instant (ISO-8601, UTC); not in the future
                     */
                    since: string;
                };
            };
        };
        responses: {
            /** @description The failed events are being re-sent */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "endpoint_id": "b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a",
                     *       "since": "2026-11-20T06:00:00.000Z",
                     *       "recovered": 14,
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookRecovery"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such endpoint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such endpoint",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The endpoint is disabled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "conflict",
                     *         "message": "The endpoint is disabled",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `since` is missing, not an instant, or in the future */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "`since` is missing, not an instant, or in the future",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
                endpoint_id?: string;
                status?: "pending" | "delivered" | "failed" | "missed";
                /** @description An event name, such as quote.approved */
                event?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e5a7c9b1-3d5f-4e8a-b2c4-6e8a0b2d4f9c",
                     *           "endpoint_id": "b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a",
                     *           "event_id": "d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b",
                     *           "event": "quote.approved",
                     *           "series": 0,
                     *           "status": "delivered",
                     *           "attempts": 2,
                     *           "last_error": null,
                     *           "created_at": "2026-11-21T16:45:05.120Z",
                     *           "updated_at": "2026-11-21T16:45:07.655Z",
                     *           "delivered_at": "2026-11-21T16:45:07.655Z",
                     *           "next_attempt_at": null,
                     *           "test": false
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "unexpectedKey": "Unrecognized key"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replayWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Started */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "delivery_id": "c9e1a3f5-7b9d-4c2e-a6f8-0b2d4f6a8c3e",
                     *       "event_id": "d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b",
                     *       "endpoint_id": "b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookReplay"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such delivery */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "No such delivery",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "The request did not pass validation.",
                     *         "details": {
                     *           "fields": {
                     *             "id": "Invalid UUID"
                     *           }
                     *         },
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspace */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c",
                     *       "name": "Brightline Shades",
                     *       "subdomain": "brightline",
                     *       "plan": "growth",
                     *       "technical_contact_email": "it@brightline.example",
                     *       "technical_contact_is_default": false,
                     *       "display_name": "Brightline Shades & Blinds",
                     *       "time_zone": "America/Vancouver",
                     *       "working_day_start": "07:30",
                     *       "quote_validity_days": 45,
                     *       "depot": {
                     *         "lat": 49.2606,
                     *         "lon": -123.114
                     *       },
                     *       "road_factor": 1.3,
                     *       "average_speed_kmh": 40,
                     *       "overtime_cap_minutes": 60,
                     *       "eta_drift_threshold_minutes": 15,
                     *       "dispatch_coalesce_seconds": 5
                     *     }
                     */
                    "application/json": components["schemas"]["Organization"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Brightline Shades & Blinds",
                 *       "time_zone": "America/Vancouver",
                 *       "working_day_start": "07:30",
                 *       "quote_validity_days": 45,
                 *       "depot": {
                 *         "lat": 49.2606,
                 *         "lon": -123.114
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The name the workspace shows */
                    display_name?: string;
                    /** @description An IANA time zone name; the working day and every local time follow it */
                    time_zone?: string;
                    /** @description `HH:mm`, local to `time_zone` */
                    working_day_start?: string;
                    /** @description DRAFT and SENT quotes older than this many days expire */
                    quote_validity_days?: number;
                    /** @description Where every crew starts and ends its day; null clears it */
                    depot?: {
                        /** @description WGS84 latitude in decimal degrees */
                        lat: number;
                        /** @description WGS84 longitude in decimal degrees */
                        lon: number;
                    } | null;
                    /** @description Road distance over great-circle distance */
                    road_factor?: number;
                    /** @description The average speed between stops, km/h */
                    average_speed_kmh?: number;
                    /** @description The daily overtime a route may hold */
                    overtime_cap_minutes?: number;
                    /** @description An ETA that moves by more than this fires `dispatch.updated` */
                    eta_drift_threshold_minutes?: number;
                    /** @description How long dispatch changes are gathered before `dispatch.updated` fires */
                    dispatch_coalesce_seconds?: number;
                    /**
                     * Format: email
                     * @description An email address; null returns to the default (the first ADMIN's email)
                     */
                    technical_contact_email?: string | null;
                };
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c",
                     *       "name": "Brightline Shades",
                     *       "subdomain": "brightline",
                     *       "plan": "growth",
                     *       "technical_contact_email": "it@brightline.example",
                     *       "technical_contact_is_default": false,
                     *       "display_name": "Brightline Shades & Blinds",
                     *       "time_zone": "America/Vancouver",
                     *       "working_day_start": "07:30",
                     *       "quote_validity_days": 45,
                     *       "depot": {
                     *         "lat": 49.2606,
                     *         "lon": -123.114
                     *       },
                     *       "road_factor": 1.3,
                     *       "average_speed_kmh": 40,
                     *       "overtime_cap_minutes": 60,
                     *       "eta_drift_threshold_minutes": 15,
                     *       "dispatch_coalesce_seconds": 5
                     *     }
                     */
                    "application/json": components["schemas"]["Organization"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A setting out of its bounds, or not an email address */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "A setting out of its bounds, or not an email address",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                entity_type?: "user" | "organization" | "pricebook" | "webhook_endpoint" | "integration";
                entity_id?: string;
                actor_id?: string;
                action?: "user.invited" | "user.invitation_resent" | "user.invitation_accepted" | "user.updated" | "user.profile_updated" | "user.password_changed" | "user.password_reset_requested" | "user.password_reset" | "organization.created" | "organization.updated" | "organization.plan_changed" | "organization.suspended" | "organization.resumed" | "pricebook.published" | "pricebook.scheduled" | "webhook_endpoint.created" | "webhook_endpoint.updated" | "webhook_endpoint.deleted" | "webhook_endpoint.secret_rotated" | "webhook_endpoint.recovered" | "integration.connected" | "integration.disconnected";
                /** @description Only events at or after this instant (ISO-8601 with an offset). */
                since?: string;
                limit?: number;
                /** @description Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit events */
            200: {
                headers: {
                    /** @description RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "7c1e2f3a-4b5d-4e6f-8a9b-0c1d2e3f4a5b",
                     *           "occurred_at": "2026-11-27T14:03:12.481Z",
                     *           "actor": {
                     *             "type": "user",
                     *             "id": "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c",
                     *             "email": "owner@brightline.example"
                     *           },
                     *           "action": "user.updated",
                     *           "entity_type": "user",
                     *           "entity_id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *           "changes": [
                     *             {
                     *               "field": "role",
                     *               "before": "SALES",
                     *               "after": "ADMIN"
                     *             }
                     *           ],
                     *           "request_id": "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e"
                     *         },
                     *         {
                     *           "id": "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
                     *           "occurred_at": "2026-11-27T13:58:40.002Z",
                     *           "actor": {
                     *             "type": "operator",
                     *             "id": null,
                     *             "email": null
                     *           },
                     *           "action": "organization.plan_changed",
                     *           "entity_type": "organization",
                     *           "entity_id": "0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c",
                     *           "changes": [
                     *             {
                     *               "field": "plan",
                     *               "before": "starter",
                     *               "after": "growth"
                     *             }
                     *           ],
                     *           "request_id": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["AuditEventList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "bad_request",
                     *         "message": "A cursor this list did not hand out",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthenticated",
                     *         "message": "Missing, malformed or foreign token.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Role not allowed.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A filter out of its bounds, at its parameter */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_failed",
                     *         "message": "A filter out of its bounds, at its parameter",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookDeliveriesPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head>
                     *       <meta charset="utf-8">
                     *       <meta name="viewport" content="width=device-width, initial-scale=1">
                     *       <title>Webhook deliveries · Shade Office</title>
                     *       <link rel="
                     */
                    "text/html": string;
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Rate limited; back off by Retry-After.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "Internal server error.",
                     *         "details": null,
                     *         "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: {
                /** @description One of the six job statuses; repeat the parameter for several. */
                status?: ("scheduled" | "dispatched" | "in_progress" | "on_hold" | "complete" | "cancelled") | ("scheduled" | "dispatched" | "in_progress" | "on_hold" | "complete" | "cancelled")[];
                crew_id?: string;
                site_id?: string;
                /** @description Text in the site’s name or the customer’s name, case-insensitive */
                q?: string;
                /** @description Strict: only jobs whose state changed after this instant. */
                updated_since?: string;
                /** @description Opaque: the previous page's next_cursor. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of jobs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "quote_ref": "Q-1042",
                     *           "status": "in_progress",
                     *           "project_type": "install",
                     *           "site": {
                     *             "site_id": "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4",
                     *             "name": "12 Elm St",
                     *             "region": "CA-ON"
                     *           },
                     *           "crew": {
                     *             "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *             "foreman": "Taylor Tech",
                     *             "headcount": 2
                     *           },
                     *           "scheduled_start": "2026-12-03T13:00:00.000Z",
                     *           "actual_start": "2026-12-03T13:12:40.000Z",
                     *           "hours_logged": 3.5,
                     *           "hours_estimated": 6.25,
                     *           "percent_complete": 0.56,
                     *           "open_change_orders": 1,
                     *           "updated_at": "2026-12-03T16:45:02.123456Z"
                     *         }
                     *       ],
                     *       "next_cursor": "WyIyMDI2LTEyLTAzVDE2OjQ1OjAyLjEyMzQ1NloiLCI1YTFmM2M3ZS05YjJkLTRlNmYtYThjMC0xZDNlNWY3YTliMmMiXQ",
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["JobPage"];
                };
            };
            /** @description A cursor this feed did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request is malformed.",
                     *       "status": 400,
                     *       "detail": "A cursor this feed did not hand out",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "status": "in_progress",
                     *       "project_type": "install",
                     *       "site": {
                     *         "site_id": "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4",
                     *         "name": "12 Elm St",
                     *         "region": "CA-ON"
                     *       },
                     *       "crew": {
                     *         "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "foreman": "Taylor Tech",
                     *         "headcount": 2
                     *       },
                     *       "scheduled_start": "2026-12-03T13:00:00.000Z",
                     *       "actual_start": "2026-12-03T13:12:40.000Z",
                     *       "hours_logged": 3.5,
                     *       "hours_estimated": 6.25,
                     *       "percent_complete": 0.56,
                     *       "open_change_orders": 1,
                     *       "updated_at": "2026-12-03T16:45:02.123456Z",
                     *       "change_orders": [
                     *         {
                     *           "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *           "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "quote_ref": "Q-1042",
                     *           "sequence": 1,
                     *           "status": "submitted",
                     *           "reason": "Customer added a bedroom window on site",
                     *           "delta": {
                     *             "labour_hours": 1.1667,
                     *             "material_cost": 126.44,
                     *             "direct_cost": 243.11,
                     *             "sell": 374.02,
                     *             "currency": "CAD"
                     *           },
                     *           "revised_contract_value": {
                     *             "previous": 2480.5,
                     *             "current": 2854.52,
                     *             "currency": "CAD"
                     *           },
                     *           "margin": {
                     *             "applied": 0.35,
                     *             "floor_engaged": false
                     *           },
                     *           "approved_by": null,
                     *           "rejected_by": null,
                     *           "rejection_reason": null,
                     *           "created_at": "2026-12-03T15:02:11.000Z",
                     *           "decided_at": null
                     *         }
                     *       ],
                     *       "time_entries": [
                     *         {
                     *           "id": "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
                     *           "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "started_at": "2026-12-03T13:15:00.000Z",
                     *           "ended_at": "2026-12-03T16:45:00.000Z",
                     *           "hours": 3.5,
                     *           "notes": "Brackets and two rollers",
                     *           "created_at": "2026-12-03T16:45:02.000Z"
                     *         }
                     *       ],
                     *       "material_draws": [
                     *         {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "sku": "HW-ROLLER-STD",
                     *           "quantity": "2",
                     *           "unit": "each",
                     *           "van_id": "VAN-3",
                     *           "drawn_by": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "created_at": "2026-12-03T13:20:00.000Z"
                     *         }
                     *       ],
                     *       "schedule": {
                     *         "window_start": "09:00",
                     *         "window_end": "12:00",
                     *         "duration_minutes": 105,
                     *         "required_skills": [
                     *           "motorisation"
                     *         ],
                     *         "defaults": [
                     *           "duration_minutes"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JobDetail"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job in the tenant, or (a TECHNICIAN) not a job of their crews */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "job-not-found",
                     *       "title": "No such job.",
                     *       "status": 404,
                     *       "detail": "No such job in the tenant, or (a TECHNICIAN) not a job of their crews",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "job_id": "Invalid UUID"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "complete",
                 *       "completed_at": "2026-12-03T17:02:00Z"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    status: "scheduled" | "dispatched" | "in_progress" | "on_hold" | "complete" | "cancelled";
                    /**
                     * Format: date-time
                     * @description The device's sign-off time: only with `complete`; not in the future (60 s of skew), not before actual_start.
                     */
                    completed_at?: string;
                };
            };
        };
        responses: {
            /** @description Moved, or unchanged for a repeated status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "status": "in_progress",
                     *       "project_type": "install",
                     *       "site": {
                     *         "site_id": "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4",
                     *         "name": "12 Elm St",
                     *         "region": "CA-ON"
                     *       },
                     *       "crew": {
                     *         "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "foreman": "Taylor Tech",
                     *         "headcount": 2
                     *       },
                     *       "scheduled_start": "2026-12-03T13:00:00.000Z",
                     *       "actual_start": "2026-12-03T13:12:40.000Z",
                     *       "hours_logged": 3.5,
                     *       "hours_estimated": 6.25,
                     *       "percent_complete": 0.56,
                     *       "open_change_orders": 1,
                     *       "updated_at": "2026-12-03T16:45:02.123456Z",
                     *       "change_orders": [
                     *         {
                     *           "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *           "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "quote_ref": "Q-1042",
                     *           "sequence": 1,
                     *           "status": "submitted",
                     *           "reason": "Customer added a bedroom window on site",
                     *           "delta": {
                     *             "labour_hours": 1.1667,
                     *             "material_cost": 126.44,
                     *             "direct_cost": 243.11,
                     *             "sell": 374.02,
                     *             "currency": "CAD"
                     *           },
                     *           "revised_contract_value": {
                     *             "previous": 2480.5,
                     *             "current": 2854.52,
                     *             "currency": "CAD"
                     *           },
                     *           "margin": {
                     *             "applied": 0.35,
                     *             "floor_engaged": false
                     *           },
                     *           "approved_by": null,
                     *           "rejected_by": null,
                     *           "rejection_reason": null,
                     *           "created_at": "2026-12-03T15:02:11.000Z",
                     *           "decided_at": null
                     *         }
                     *       ],
                     *       "time_entries": [
                     *         {
                     *           "id": "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
                     *           "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "started_at": "2026-12-03T13:15:00.000Z",
                     *           "ended_at": "2026-12-03T16:45:00.000Z",
                     *           "hours": 3.5,
                     *           "notes": "Brackets and two rollers",
                     *           "created_at": "2026-12-03T16:45:02.000Z"
                     *         }
                     *       ],
                     *       "material_draws": [
                     *         {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "sku": "HW-ROLLER-STD",
                     *           "quantity": "2",
                     *           "unit": "each",
                     *           "van_id": "VAN-3",
                     *           "drawn_by": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "created_at": "2026-12-03T13:20:00.000Z"
                     *         }
                     *       ],
                     *       "schedule": {
                     *         "window_start": "09:00",
                     *         "window_end": "12:00",
                     *         "duration_minutes": 105,
                     *         "required_skills": [
                     *           "motorisation"
                     *         ],
                     *         "defaults": [
                     *           "duration_minutes"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JobDetail"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job in the tenant, or (a TECHNICIAN) not a job of their crews */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "job-not-found",
                     *       "title": "No such job.",
                     *       "status": 404,
                     *       "detail": "No such job in the tenant, or (a TECHNICIAN) not a job of their crews",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The table does not allow the move */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "invalid-transition",
                     *       "title": "The job cannot move to that status.",
                     *       "status": 409,
                     *       "detail": "The table does not allow the move",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "status": "Invalid option: expected one of \"scheduled\"|\"dispatched\"|\"in_progress\"|\"on_hold\"|\"complete\"|\"cancelled\""
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getJobHistory: {
        parameters: {
            query?: {
                /** @description Opaque: the previous page's next_cursor. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of history entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "kind": "created",
                     *           "from_status": null,
                     *           "to_status": "scheduled",
                     *           "detail": {},
                     *           "changed_by": "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a",
                     *           "changed_at": "2026-11-28T15:02:11.000Z"
                     *         },
                     *         {
                     *           "kind": "crew",
                     *           "from_status": null,
                     *           "to_status": null,
                     *           "detail": {
                     *             "from_crew_id": null,
                     *             "to_crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *             "foreman_user_id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
                     *           },
                     *           "changed_by": "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a",
                     *           "changed_at": "2026-12-02T09:30:00.000Z"
                     *         },
                     *         {
                     *           "kind": "status",
                     *           "from_status": "scheduled",
                     *           "to_status": "dispatched",
                     *           "detail": {},
                     *           "changed_by": "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a",
                     *           "changed_at": "2026-12-02T09:30:05.000Z"
                     *         },
                     *         {
                     *           "kind": "status",
                     *           "from_status": "dispatched",
                     *           "to_status": "in_progress",
                     *           "detail": {
                     *             "notes": "On site, customer present"
                     *           },
                     *           "changed_by": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *           "changed_at": "2026-12-03T13:12:40.000Z"
                     *         }
                     *       ],
                     *       "next_cursor": "WyI0Il0",
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["JobHistoryPage"];
                };
            };
            /** @description A cursor this history did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request is malformed.",
                     *       "status": 400,
                     *       "detail": "A cursor this history did not hand out",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job in the tenant, or (a TECHNICIAN) not a job of their crews */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "job-not-found",
                     *       "title": "No such job.",
                     *       "status": 404,
                     *       "detail": "No such job in the tenant, or (a TECHNICIAN) not a job of their crews",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    assignJobCrew: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    crew_id: string;
                };
            };
        };
        responses: {
            /** @description The job with its crew */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "status": "in_progress",
                     *       "project_type": "install",
                     *       "site": {
                     *         "site_id": "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4",
                     *         "name": "12 Elm St",
                     *         "region": "CA-ON"
                     *       },
                     *       "crew": {
                     *         "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "foreman": "Taylor Tech",
                     *         "headcount": 2
                     *       },
                     *       "scheduled_start": "2026-12-03T13:00:00.000Z",
                     *       "actual_start": "2026-12-03T13:12:40.000Z",
                     *       "hours_logged": 3.5,
                     *       "hours_estimated": 6.25,
                     *       "percent_complete": 0.56,
                     *       "open_change_orders": 1,
                     *       "updated_at": "2026-12-03T16:45:02.123456Z",
                     *       "change_orders": [
                     *         {
                     *           "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *           "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "quote_ref": "Q-1042",
                     *           "sequence": 1,
                     *           "status": "submitted",
                     *           "reason": "Customer added a bedroom window on site",
                     *           "delta": {
                     *             "labour_hours": 1.1667,
                     *             "material_cost": 126.44,
                     *             "direct_cost": 243.11,
                     *             "sell": 374.02,
                     *             "currency": "CAD"
                     *           },
                     *           "revised_contract_value": {
                     *             "previous": 2480.5,
                     *             "current": 2854.52,
                     *             "currency": "CAD"
                     *           },
                     *           "margin": {
                     *             "applied": 0.35,
                     *             "floor_engaged": false
                     *           },
                     *           "approved_by": null,
                     *           "rejected_by": null,
                     *           "rejection_reason": null,
                     *           "created_at": "2026-12-03T15:02:11.000Z",
                     *           "decided_at": null
                     *         }
                     *       ],
                     *       "time_entries": [
                     *         {
                     *           "id": "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
                     *           "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "started_at": "2026-12-03T13:15:00.000Z",
                     *           "ended_at": "2026-12-03T16:45:00.000Z",
                     *           "hours": 3.5,
                     *           "notes": "Brackets and two rollers",
                     *           "created_at": "2026-12-03T16:45:02.000Z"
                     *         }
                     *       ],
                     *       "material_draws": [
                     *         {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "sku": "HW-ROLLER-STD",
                     *           "quantity": "2",
                     *           "unit": "each",
                     *           "van_id": "VAN-3",
                     *           "drawn_by": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "created_at": "2026-12-03T13:20:00.000Z"
                     *         }
                     *       ],
                     *       "schedule": {
                     *         "window_start": "09:00",
                     *         "window_end": "12:00",
                     *         "duration_minutes": 105,
                     *         "required_skills": [
                     *           "motorisation"
                     *         ],
                     *         "defaults": [
                     *           "duration_minutes"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JobDetail"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job or crew */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such job or crew",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Finished job, or a crew with a deactivated technician */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "Finished job, or a crew with a deactivated technician",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "crew_id": "Invalid input: expected string, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    addTimeEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "started_at": "2026-12-03T13:15:00Z",
                 *       "ended_at": "2026-12-03T16:45:00Z",
                 *       "notes": "Brackets and two rollers"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date-time
                     * @description RFC 3339 timestamp
                     */
                    started_at: string;
                    /**
                     * Format: date-time
                     * @description RFC 3339 timestamp
                     */
                    ended_at: string;
                    notes?: string;
                    /**
                     * Format: uuid
                     * @description ADMIN only: whose time it is (a technician logs their own).
                     */
                    technician_id?: string;
                };
            };
        };
        responses: {
            /** @description The job with the entry */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "status": "in_progress",
                     *       "project_type": "install",
                     *       "site": {
                     *         "site_id": "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4",
                     *         "name": "12 Elm St",
                     *         "region": "CA-ON"
                     *       },
                     *       "crew": {
                     *         "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "foreman": "Taylor Tech",
                     *         "headcount": 2
                     *       },
                     *       "scheduled_start": "2026-12-03T13:00:00.000Z",
                     *       "actual_start": "2026-12-03T13:12:40.000Z",
                     *       "hours_logged": 3.5,
                     *       "hours_estimated": 6.25,
                     *       "percent_complete": 0.56,
                     *       "open_change_orders": 1,
                     *       "updated_at": "2026-12-03T16:45:02.123456Z",
                     *       "change_orders": [
                     *         {
                     *           "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *           "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "quote_ref": "Q-1042",
                     *           "sequence": 1,
                     *           "status": "submitted",
                     *           "reason": "Customer added a bedroom window on site",
                     *           "delta": {
                     *             "labour_hours": 1.1667,
                     *             "material_cost": 126.44,
                     *             "direct_cost": 243.11,
                     *             "sell": 374.02,
                     *             "currency": "CAD"
                     *           },
                     *           "revised_contract_value": {
                     *             "previous": 2480.5,
                     *             "current": 2854.52,
                     *             "currency": "CAD"
                     *           },
                     *           "margin": {
                     *             "applied": 0.35,
                     *             "floor_engaged": false
                     *           },
                     *           "approved_by": null,
                     *           "rejected_by": null,
                     *           "rejection_reason": null,
                     *           "created_at": "2026-12-03T15:02:11.000Z",
                     *           "decided_at": null
                     *         }
                     *       ],
                     *       "time_entries": [
                     *         {
                     *           "id": "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
                     *           "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "started_at": "2026-12-03T13:15:00.000Z",
                     *           "ended_at": "2026-12-03T16:45:00.000Z",
                     *           "hours": 3.5,
                     *           "notes": "Brackets and two rollers",
                     *           "created_at": "2026-12-03T16:45:02.000Z"
                     *         }
                     *       ],
                     *       "material_draws": [
                     *         {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "sku": "HW-ROLLER-STD",
                     *           "quantity": "2",
                     *           "unit": "each",
                     *           "van_id": "VAN-3",
                     *           "drawn_by": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "created_at": "2026-12-03T13:20:00.000Z"
                     *         }
                     *       ],
                     *       "schedule": {
                     *         "window_start": "09:00",
                     *         "window_end": "12:00",
                     *         "duration_minutes": 105,
                     *         "required_skills": [
                     *           "motorisation"
                     *         ],
                     *         "defaults": [
                     *           "duration_minutes"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JobDetail"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job in the tenant, or (a TECHNICIAN) not a job of their crews */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "job-not-found",
                     *       "title": "No such job.",
                     *       "status": 404,
                     *       "detail": "No such job in the tenant, or (a TECHNICIAN) not a job of their crews",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Overlaps another entry, or the job is finished */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "Overlaps another entry, or the job is finished",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "started_at": "Invalid input: expected string, received undefined",
                     *         "ended_at": "Invalid input: expected string, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    addMaterialDraw: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "sku": "HW-ROLLER-STD",
                 *       "quantity": "2",
                 *       "van_id": "VAN-3"
                 *     }
                 */
                "application/json": {
                    sku: string;
                    quantity: string;
                    van_id?: string;
                };
            };
        };
        responses: {
            /** @description The job with the draw */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "status": "in_progress",
                     *       "project_type": "install",
                     *       "site": {
                     *         "site_id": "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4",
                     *         "name": "12 Elm St",
                     *         "region": "CA-ON"
                     *       },
                     *       "crew": {
                     *         "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "foreman": "Taylor Tech",
                     *         "headcount": 2
                     *       },
                     *       "scheduled_start": "2026-12-03T13:00:00.000Z",
                     *       "actual_start": "2026-12-03T13:12:40.000Z",
                     *       "hours_logged": 3.5,
                     *       "hours_estimated": 6.25,
                     *       "percent_complete": 0.56,
                     *       "open_change_orders": 1,
                     *       "updated_at": "2026-12-03T16:45:02.123456Z",
                     *       "change_orders": [
                     *         {
                     *           "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *           "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "quote_ref": "Q-1042",
                     *           "sequence": 1,
                     *           "status": "submitted",
                     *           "reason": "Customer added a bedroom window on site",
                     *           "delta": {
                     *             "labour_hours": 1.1667,
                     *             "material_cost": 126.44,
                     *             "direct_cost": 243.11,
                     *             "sell": 374.02,
                     *             "currency": "CAD"
                     *           },
                     *           "revised_contract_value": {
                     *             "previous": 2480.5,
                     *             "current": 2854.52,
                     *             "currency": "CAD"
                     *           },
                     *           "margin": {
                     *             "applied": 0.35,
                     *             "floor_engaged": false
                     *           },
                     *           "approved_by": null,
                     *           "rejected_by": null,
                     *           "rejection_reason": null,
                     *           "created_at": "2026-12-03T15:02:11.000Z",
                     *           "decided_at": null
                     *         }
                     *       ],
                     *       "time_entries": [
                     *         {
                     *           "id": "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
                     *           "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "started_at": "2026-12-03T13:15:00.000Z",
                     *           "ended_at": "2026-12-03T16:45:00.000Z",
                     *           "hours": 3.5,
                     *           "notes": "Brackets and two rollers",
                     *           "created_at": "2026-12-03T16:45:02.000Z"
                     *         }
                     *       ],
                     *       "material_draws": [
                     *         {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "sku": "HW-ROLLER-STD",
                     *           "quantity": "2",
                     *           "unit": "each",
                     *           "van_id": "VAN-3",
                     *           "drawn_by": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "created_at": "2026-12-03T13:20:00.000Z"
                     *         }
                     *       ],
                     *       "schedule": {
                     *         "window_start": "09:00",
                     *         "window_end": "12:00",
                     *         "duration_minutes": 105,
                     *         "required_skills": [
                     *           "motorisation"
                     *         ],
                     *         "defaults": [
                     *           "duration_minutes"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JobDetail"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job in the tenant, or (a TECHNICIAN) not a job of their crews */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "job-not-found",
                     *       "title": "No such job.",
                     *       "status": 404,
                     *       "detail": "No such job in the tenant, or (a TECHNICIAN) not a job of their crews",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The job is finished */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "The job is finished",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "sku": "Invalid input: expected string, received undefined",
                     *         "quantity": "Invalid input: expected string, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listCrews: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of crews */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *           "name": "Crew North",
                     *           "foreman": {
                     *             "user_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *             "name": "Taylor Tech"
                     *           },
                     *           "member_ids": [
                     *             "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *             "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
                     *           ],
                     *           "headcount": 2
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["CrewList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request is malformed.",
                     *       "status": 400,
                     *       "detail": "A cursor this list did not hand out",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createCrew: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Crew North",
                 *       "foreman_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                 *       "member_ids": [
                 *         "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
                 *       ]
                 *     }
                 */
                "application/json": {
                    name: string;
                    /** Format: uuid */
                    foreman_id: string;
                    /**
                     * @description Technicians besides the foreman (the foreman is always a member).
                     * @default []
                     */
                    member_ids?: string[];
                };
            };
        };
        responses: {
            /** @description The crew */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "name": "Crew North",
                     *       "foreman": {
                     *         "user_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *         "name": "Taylor Tech"
                     *       },
                     *       "member_ids": [
                     *         "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *         "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
                     *       ],
                     *       "headcount": 2
                     *     }
                     */
                    "application/json": components["schemas"]["Crew"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "name": "Invalid input: expected string, received undefined",
                     *         "foreman_id": "Invalid input: expected string, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateCrew: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                crew_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Crew North (evenings)"
                 *     }
                 */
                "application/json": {
                    name?: string;
                    /** Format: uuid */
                    foreman_id?: string;
                    member_ids?: string[];
                };
            };
        };
        responses: {
            /** @description The crew */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "name": "Crew North",
                     *       "foreman": {
                     *         "user_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *         "name": "Taylor Tech"
                     *       },
                     *       "member_ids": [
                     *         "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *         "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
                     *       ],
                     *       "headcount": 2
                     *     }
                     */
                    "application/json": components["schemas"]["Crew"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such crew */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such crew",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    raiseChangeOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reason": "Customer added a bedroom window on site",
                 *       "line_items": [
                 *         {
                 *           "reference": "Bedroom",
                 *           "widthInches": 35.25,
                 *           "dropInches": 48,
                 *           "quantity": 1,
                 *           "fabricSkuCode": "FAB-BLACKOUT",
                 *           "hardwareSkuCode": "HW-ROLLER-HD"
                 *         }
                 *       ],
                 *       "labour_hours": 0.5
                 *     }
                 */
                "application/json": {
                    reason: string;
                    /** @default [] */
                    line_items?: {
                        reference?: string;
                        widthInches: number;
                        dropInches: number;
                        quantity: number;
                        fabricSkuCode: string;
                        hardwareSkuCode: string;
                        motorSkuCode?: string;
                        trimSkuCode?: string;
                    }[];
                    /**
                     * @description Extra labour hours beyond the lines' own; negative for work no longer needed.
                     * @default 0
                     */
                    labour_hours?: number;
                };
            };
        };
        responses: {
            /** @description The change order, submitted */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "sequence": 1,
                     *       "status": "submitted",
                     *       "reason": "Customer added a bedroom window on site",
                     *       "delta": {
                     *         "labour_hours": 1.1667,
                     *         "material_cost": 126.44,
                     *         "direct_cost": 243.11,
                     *         "sell": 374.02,
                     *         "currency": "CAD"
                     *       },
                     *       "revised_contract_value": {
                     *         "previous": 2480.5,
                     *         "current": 2854.52,
                     *         "currency": "CAD"
                     *       },
                     *       "margin": {
                     *         "applied": 0.35,
                     *         "floor_engaged": false
                     *       },
                     *       "approved_by": null,
                     *       "rejected_by": null,
                     *       "rejection_reason": null,
                     *       "created_at": "2026-12-03T15:02:11.000Z",
                     *       "decided_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["ChangeOrder"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job in the tenant, or (a TECHNICIAN) not a job of their crews */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "job-not-found",
                     *       "title": "No such job.",
                     *       "status": 404,
                     *       "detail": "No such job in the tenant, or (a TECHNICIAN) not a job of their crews",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The job is finished or has no quote */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "The job is finished or has no quote",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "reason": "Invalid input: expected string, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    approveChangeOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                change_order_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "approved_by": {
                 *         "name": "Jordan Rivera",
                 *         "role": "Homeowner",
                 *         "method": "on_device_signature"
                 *       }
                 *     }
                 */
                "application/json": {
                    approved_by: {
                        name: string;
                        role: string;
                        /** @enum {string} */
                        method: "on_device_signature" | "in_person" | "email" | "phone";
                    };
                };
            };
        };
        responses: {
            /** @description The change order, approved */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "sequence": 1,
                     *       "status": "approved",
                     *       "reason": "Customer added a bedroom window on site",
                     *       "delta": {
                     *         "labour_hours": 1.1667,
                     *         "material_cost": 126.44,
                     *         "direct_cost": 243.11,
                     *         "sell": 374.02,
                     *         "currency": "CAD"
                     *       },
                     *       "revised_contract_value": {
                     *         "previous": 2480.5,
                     *         "current": 2854.52,
                     *         "currency": "CAD"
                     *       },
                     *       "margin": {
                     *         "applied": 0.35,
                     *         "floor_engaged": false
                     *       },
                     *       "approved_by": null,
                     *       "rejected_by": null,
                     *       "rejection_reason": null,
                     *       "created_at": "2026-12-03T15:02:11.000Z",
                     *       "decided_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["ChangeOrder"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such change order */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such change order",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Already decided, or the job is finished */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "Already decided, or the job is finished",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "approved_by": "Invalid input: expected object, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rejectChangeOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                change_order_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reason": "Customer decided against the extra window"
                 *     }
                 */
                "application/json": {
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The change order, rejected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "sequence": 1,
                     *       "status": "rejected",
                     *       "reason": "Customer added a bedroom window on site",
                     *       "delta": {
                     *         "labour_hours": 1.1667,
                     *         "material_cost": 126.44,
                     *         "direct_cost": 243.11,
                     *         "sell": 374.02,
                     *         "currency": "CAD"
                     *       },
                     *       "revised_contract_value": {
                     *         "previous": 2480.5,
                     *         "current": 2854.52,
                     *         "currency": "CAD"
                     *       },
                     *       "margin": {
                     *         "applied": 0.35,
                     *         "floor_engaged": false
                     *       },
                     *       "approved_by": null,
                     *       "rejected_by": null,
                     *       "rejection_reason": null,
                     *       "created_at": "2026-12-03T15:02:11.000Z",
                     *       "decided_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["ChangeOrder"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such change order */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such change order",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Already decided, or the job is finished */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "Already decided, or the job is finished",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "reason": "Invalid input: expected string, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTechnicians: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of technicians */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "name": "Taylor Tech",
                     *           "email": "tech@sandbox.test",
                     *           "active": true,
                     *           "skills": [
                     *             "large_format",
                     *             "motorisation"
                     *           ],
                     *           "availability": {
                     *             "weekly": [
                     *               {
                     *                 "day": "mon",
                     *                 "start": "07:00",
                     *                 "end": "15:30",
                     *                 "break_minutes": 30
                     *               },
                     *               {
                     *                 "day": "tue",
                     *                 "start": "07:00",
                     *                 "end": "15:30",
                     *                 "break_minutes": 30
                     *               }
                     *             ],
                     *             "time_off": [
                     *               {
                     *                 "start": "2026-12-24",
                     *                 "end": "2026-12-26",
                     *                 "reason": "Holidays"
                     *               }
                     *             ],
                     *             "is_default": false
                     *           },
                     *           "crew_ids": [
                     *             "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
                     *           ]
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["TechnicianList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request is malformed.",
                     *       "status": 400,
                     *       "detail": "A cursor this list did not hand out",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setTechnicianSkills: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                technician_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "skills": [
                 *         "motorisation",
                 *         "large_format"
                 *       ]
                 *     }
                 */
                "application/json": {
                    skills: string[];
                };
            };
        };
        responses: {
            /** @description The technician */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *       "name": "Taylor Tech",
                     *       "email": "tech@sandbox.test",
                     *       "active": true,
                     *       "skills": [
                     *         "large_format",
                     *         "motorisation"
                     *       ],
                     *       "availability": {
                     *         "weekly": [
                     *           {
                     *             "day": "mon",
                     *             "start": "07:00",
                     *             "end": "15:30",
                     *             "break_minutes": 30
                     *           },
                     *           {
                     *             "day": "tue",
                     *             "start": "07:00",
                     *             "end": "15:30",
                     *             "break_minutes": 30
                     *           }
                     *         ],
                     *         "time_off": [
                     *           {
                     *             "start": "2026-12-24",
                     *             "end": "2026-12-26",
                     *             "reason": "Holidays"
                     *           }
                     *         ],
                     *         "is_default": false
                     *       },
                     *       "crew_ids": [
                     *         "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Technician"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such technician */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such technician",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "skills": "Invalid input: expected array, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setTechnicianAvailability: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                technician_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "weekly": [
                 *         {
                 *           "day": "mon",
                 *           "start": "07:00",
                 *           "end": "15:30",
                 *           "break_minutes": 30
                 *         }
                 *       ],
                 *       "time_off": [
                 *         {
                 *           "start": "2026-12-24",
                 *           "end": "2026-12-26",
                 *           "reason": "Holidays"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    weekly: {
                        /** @enum {string} */
                        day: "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";
                        start: string;
                        end: string;
                        /** @default 0 */
                        break_minutes?: number;
                    }[];
                    /** @default [] */
                    time_off?: {
                        start: string;
                        end: string;
                        reason?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description The technician */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *       "name": "Taylor Tech",
                     *       "email": "tech@sandbox.test",
                     *       "active": true,
                     *       "skills": [
                     *         "large_format",
                     *         "motorisation"
                     *       ],
                     *       "availability": {
                     *         "weekly": [
                     *           {
                     *             "day": "mon",
                     *             "start": "07:00",
                     *             "end": "15:30",
                     *             "break_minutes": 30
                     *           },
                     *           {
                     *             "day": "tue",
                     *             "start": "07:00",
                     *             "end": "15:30",
                     *             "break_minutes": 30
                     *           }
                     *         ],
                     *         "time_off": [
                     *           {
                     *             "start": "2026-12-24",
                     *             "end": "2026-12-26",
                     *             "reason": "Holidays"
                     *           }
                     *         ],
                     *         "is_default": false
                     *       },
                     *       "crew_ids": [
                     *         "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Technician"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such technician */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such technician",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "weekly": "Invalid input: expected array, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSites: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sites */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "site_id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *           "name": "120 Front St W, Toronto",
                     *           "region": "CA-ON",
                     *           "lat": 43.6455,
                     *           "lon": -79.3841,
                     *           "located": true
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": components["schemas"]["SiteList"];
                };
            };
            /** @description A cursor this list did not hand out */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request is malformed.",
                     *       "status": 400,
                     *       "detail": "A cursor this list did not hand out",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                site_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lat": 43.6455,
                 *       "lon": -79.3841
                 *     }
                 */
                "application/json": {
                    name?: string;
                    /** @description WGS84 latitude, decimal degrees, -90 to 90 */
                    lat?: number | null;
                    /** @description WGS84 longitude, decimal degrees, -180 to 180 */
                    lon?: number | null;
                };
            };
        };
        responses: {
            /** @description The site */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "site_id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *       "name": "120 Front St W, Toronto",
                     *       "region": "CA-ON",
                     *       "lat": 43.6455,
                     *       "lon": -79.3841,
                     *       "located": true
                     *     }
                     */
                    "application/json": components["schemas"]["Site"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such site */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such site",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setJobSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "window_start": "09:00",
                 *       "window_end": "12:00",
                 *       "required_skills": [
                 *         "high_reach"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Local time on the scheduled date; null returns to the default (the working day). */
                    window_start?: string | null;
                    window_end?: string | null;
                    /** @description Skills the office adds to those the quote lines imply (motorisation, large_format). */
                    required_skills?: string[];
                    /** @description null returns to the default (estimated hours not logged / headcount, at least 15). */
                    duration_minutes?: number | null;
                };
            };
        };
        responses: {
            /** @description The job with its schedule */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *       "quote_ref": "Q-1042",
                     *       "status": "in_progress",
                     *       "project_type": "install",
                     *       "site": {
                     *         "site_id": "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4",
                     *         "name": "12 Elm St",
                     *         "region": "CA-ON"
                     *       },
                     *       "crew": {
                     *         "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "foreman": "Taylor Tech",
                     *         "headcount": 2
                     *       },
                     *       "scheduled_start": "2026-12-03T13:00:00.000Z",
                     *       "actual_start": "2026-12-03T13:12:40.000Z",
                     *       "hours_logged": 3.5,
                     *       "hours_estimated": 6.25,
                     *       "percent_complete": 0.56,
                     *       "open_change_orders": 1,
                     *       "updated_at": "2026-12-03T16:45:02.123456Z",
                     *       "change_orders": [
                     *         {
                     *           "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                     *           "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *           "quote_ref": "Q-1042",
                     *           "sequence": 1,
                     *           "status": "submitted",
                     *           "reason": "Customer added a bedroom window on site",
                     *           "delta": {
                     *             "labour_hours": 1.1667,
                     *             "material_cost": 126.44,
                     *             "direct_cost": 243.11,
                     *             "sell": 374.02,
                     *             "currency": "CAD"
                     *           },
                     *           "revised_contract_value": {
                     *             "previous": 2480.5,
                     *             "current": 2854.52,
                     *             "currency": "CAD"
                     *           },
                     *           "margin": {
                     *             "applied": 0.35,
                     *             "floor_engaged": false
                     *           },
                     *           "approved_by": null,
                     *           "rejected_by": null,
                     *           "rejection_reason": null,
                     *           "created_at": "2026-12-03T15:02:11.000Z",
                     *           "decided_at": null
                     *         }
                     *       ],
                     *       "time_entries": [
                     *         {
                     *           "id": "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
                     *           "technician_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "started_at": "2026-12-03T13:15:00.000Z",
                     *           "ended_at": "2026-12-03T16:45:00.000Z",
                     *           "hours": 3.5,
                     *           "notes": "Brackets and two rollers",
                     *           "created_at": "2026-12-03T16:45:02.000Z"
                     *         }
                     *       ],
                     *       "material_draws": [
                     *         {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "sku": "HW-ROLLER-STD",
                     *           "quantity": "2",
                     *           "unit": "each",
                     *           "van_id": "VAN-3",
                     *           "drawn_by": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "created_at": "2026-12-03T13:20:00.000Z"
                     *         }
                     *       ],
                     *       "schedule": {
                     *         "window_start": "09:00",
                     *         "window_end": "12:00",
                     *         "duration_minutes": 105,
                     *         "required_skills": [
                     *           "motorisation"
                     *         ],
                     *         "defaults": [
                     *           "duration_minutes"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JobDetail"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "job-not-found",
                     *       "title": "No such job.",
                     *       "status": 404,
                     *       "detail": "No such job",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The job is complete or cancelled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "The job is complete or cancelled",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listDailyRoutes: {
        parameters: {
            query: {
                /** @description A local date of the workspace, YYYY-MM-DD */
                date: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The day */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "date": "2026-12-03",
                     *       "data": [
                     *         {
                     *           "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *           "date": "2026-12-03",
                     *           "crewId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *           "assigneeId": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "shift": {
                     *             "start": "08:00",
                     *             "end": "17:00"
                     *           },
                     *           "totalDriveMinutes": 74,
                     *           "overtimeMinutes": 0,
                     *           "stops": [
                     *             {
                     *               "sequence": 1,
                     *               "jobId": "7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a",
                     *               "etaLocal": "2026-12-03T08:21",
                     *               "departLocal": "2026-12-03T10:06",
                     *               "windowStart": "08:00",
                     *               "windowEnd": "17:00",
                     *               "driveMinutesFromPrevious": 21,
                     *               "status": "planned"
                     *             },
                     *             {
                     *               "sequence": 2,
                     *               "jobId": "8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f",
                     *               "etaLocal": "2026-12-03T10:24",
                     *               "departLocal": "2026-12-03T12:24",
                     *               "windowStart": "10:00",
                     *               "windowEnd": "12:00",
                     *               "driveMinutesFromPrevious": 18,
                     *               "status": "planned"
                     *             }
                     *           ],
                     *           "violations": [],
                     *           "travelTimeSource": "great_circle",
                     *           "revision": 3
                     *         }
                     *       ],
                     *       "unassigned": [
                     *         {
                     *           "jobId": "9d3a6e4c-1f5b-4a0d-8e7f-3b4c5d6e7f8a",
                     *           "reasons": [
                     *             {
                     *               "code": "SKILL_MISSING",
                     *               "detail": "Requires [motorisation]; the crew has []; missing [motorisation].",
                     *               "crewId": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "exclusions": [
                     *         {
                     *           "jobId": "9d3a6e4c-1f5b-4a0d-8e7f-3b4c5d6e7f8a",
                     *           "crewId": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a",
                     *           "reasons": [
                     *             {
                     *               "code": "SKILL_MISSING",
                     *               "detail": "Requires [motorisation]; the crew has []; missing [motorisation]."
                     *             }
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["RoutesDay"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "date": "Invalid input: expected string, received undefined",
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getDailyRoute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A local date of the workspace, YYYY-MM-DD */
                date: string;
                crew_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The route */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *       "date": "2026-12-03",
                     *       "crewId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "assigneeId": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *       "shift": {
                     *         "start": "08:00",
                     *         "end": "17:00"
                     *       },
                     *       "totalDriveMinutes": 74,
                     *       "overtimeMinutes": 0,
                     *       "stops": [
                     *         {
                     *           "sequence": 1,
                     *           "jobId": "7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a",
                     *           "etaLocal": "2026-12-03T08:21",
                     *           "departLocal": "2026-12-03T10:06",
                     *           "windowStart": "08:00",
                     *           "windowEnd": "17:00",
                     *           "driveMinutesFromPrevious": 21,
                     *           "status": "planned"
                     *         },
                     *         {
                     *           "sequence": 2,
                     *           "jobId": "8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f",
                     *           "etaLocal": "2026-12-03T10:24",
                     *           "departLocal": "2026-12-03T12:24",
                     *           "windowStart": "10:00",
                     *           "windowEnd": "12:00",
                     *           "driveMinutesFromPrevious": 18,
                     *           "status": "planned"
                     *         }
                     *       ],
                     *       "violations": [],
                     *       "travelTimeSource": "great_circle",
                     *       "revision": 3
                     *     }
                     */
                    "application/json": components["schemas"]["Route"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No route of that crew on that date */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No route of that crew on that date",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "date": "Invalid ISO date",
                     *         "crew_id": "Invalid UUID"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setDailyRoute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A local date of the workspace, YYYY-MM-DD */
                date: string;
                crew_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "stops": [
                 *         "8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f",
                 *         "7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a"
                 *       ]
                 *     }
                 */
                "application/json": {
                    stops: string[];
                };
            };
        };
        responses: {
            /** @description The route, stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *       "date": "2026-12-03",
                     *       "crewId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "assigneeId": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *       "shift": {
                     *         "start": "08:00",
                     *         "end": "17:00"
                     *       },
                     *       "totalDriveMinutes": 74,
                     *       "overtimeMinutes": 0,
                     *       "stops": [
                     *         {
                     *           "sequence": 1,
                     *           "jobId": "7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a",
                     *           "etaLocal": "2026-12-03T08:21",
                     *           "departLocal": "2026-12-03T10:06",
                     *           "windowStart": "08:00",
                     *           "windowEnd": "17:00",
                     *           "driveMinutesFromPrevious": 21,
                     *           "status": "planned"
                     *         },
                     *         {
                     *           "sequence": 2,
                     *           "jobId": "8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f",
                     *           "etaLocal": "2026-12-03T10:24",
                     *           "departLocal": "2026-12-03T12:24",
                     *           "windowStart": "10:00",
                     *           "windowEnd": "12:00",
                     *           "driveMinutesFromPrevious": 18,
                     *           "status": "planned"
                     *         }
                     *       ],
                     *       "violations": [
                     *         {
                     *           "jobId": "8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f",
                     *           "code": "TIME_WINDOW_UNREACHABLE",
                     *           "minutes": 25
                     *         }
                     *       ],
                     *       "travelTimeSource": "great_circle",
                     *       "revision": 4
                     *     }
                     */
                    "application/json": components["schemas"]["Route"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such crew */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such crew",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "stops": "Invalid input: expected array, received undefined"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Travel times from osrm failed: http://127.0.0.1:5000 no answer within 10000 ms. Nothing was applied. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "A provider answered with an error.",
                     *       "status": 502,
                     *       "detail": "Travel times from osrm failed: http://127.0.0.1:5000 no answer within 10000 ms. Nothing was applied.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    planDailyRoutes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A local date of the workspace, YYYY-MM-DD */
                date: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "mode": "optimize",
                 *       "keep_assignments": true,
                 *       "dry_run": false
                 *     }
                 */
                "application/json": {
                    /**
                     * @default optimize
                     * @enum {string}
                     */
                    mode?: "optimize" | "check";
                    /** @default false */
                    keep_assignments?: boolean;
                    /** @default false */
                    dry_run?: boolean;
                };
            };
        };
        responses: {
            /** @description The plan */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "date": "2026-12-03",
                     *       "mode": "optimize",
                     *       "dry_run": false,
                     *       "applied": true,
                     *       "travelTimeSource": "great_circle",
                     *       "solver": "built-in",
                     *       "data": [
                     *         {
                     *           "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *           "date": "2026-12-03",
                     *           "crewId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *           "assigneeId": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *           "shift": {
                     *             "start": "08:00",
                     *             "end": "17:00"
                     *           },
                     *           "totalDriveMinutes": 74,
                     *           "overtimeMinutes": 0,
                     *           "stops": [
                     *             {
                     *               "sequence": 1,
                     *               "jobId": "7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a",
                     *               "etaLocal": "2026-12-03T08:21",
                     *               "departLocal": "2026-12-03T10:06",
                     *               "windowStart": "08:00",
                     *               "windowEnd": "17:00",
                     *               "driveMinutesFromPrevious": 21,
                     *               "status": "planned"
                     *             },
                     *             {
                     *               "sequence": 2,
                     *               "jobId": "8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f",
                     *               "etaLocal": "2026-12-03T10:24",
                     *               "departLocal": "2026-12-03T12:24",
                     *               "windowStart": "10:00",
                     *               "windowEnd": "12:00",
                     *               "driveMinutesFromPrevious": 18,
                     *               "status": "planned"
                     *             }
                     *           ],
                     *           "violations": [],
                     *           "travelTimeSource": "great_circle",
                     *           "revision": 3
                     *         }
                     *       ],
                     *       "unassigned": [
                     *         {
                     *           "jobId": "9d3a6e4c-1f5b-4a0d-8e7f-3b4c5d6e7f8a",
                     *           "reasons": [
                     *             {
                     *               "code": "SKILL_MISSING",
                     *               "detail": "Requires [motorisation]; the crew has []; missing [motorisation].",
                     *               "crewId": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a"
                     *             },
                     *             {
                     *               "code": "TIME_WINDOW_UNREACHABLE",
                     *               "detail": "Earliest arrival 08:41 (leaving the depot at 08:00); the window is 07:00-08:30.",
                     *               "crewId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "exclusions": [
                     *         {
                     *           "jobId": "9d3a6e4c-1f5b-4a0d-8e7f-3b4c5d6e7f8a",
                     *           "crewId": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a",
                     *           "reasons": [
                     *             {
                     *               "code": "SKILL_MISSING",
                     *               "detail": "Requires [motorisation]; the crew has []; missing [motorisation]."
                     *             }
                     *           ]
                     *         },
                     *         {
                     *           "jobId": "9d3a6e4c-1f5b-4a0d-8e7f-3b4c5d6e7f8a",
                     *           "crewId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *           "reasons": [
                     *             {
                     *               "code": "TIME_WINDOW_UNREACHABLE",
                     *               "detail": "Earliest arrival 08:41 (leaving the depot at 08:00); the window is 07:00-08:30."
                     *             }
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["RoutePlan"];
                };
            };
            /** @description A plan of this date is running: its stage */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "running",
                     *       "stage": "solving",
                     *       "workflow_id": "route-plan-0f1e2d3c-4b5a-4697-8877-665544332211-2026-12-03"
                     *     }
                     */
                    "application/json": components["schemas"]["RoutePlanRunning"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Role not allowed. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Role not allowed.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace has no depot */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "The workspace has no depot",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "unexpectedKey": "Unrecognized key"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Travel times from osrm failed: http://127.0.0.1:5000 answered NoTable. Nothing was applied. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "A provider answered with an error.",
                     *       "status": 502,
                     *       "detail": "Travel times from osrm failed: http://127.0.0.1:5000 answered NoTable. Nothing was applied.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setCrewStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                crew_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "on_site",
                 *       "jobId": "7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    status: "en_route" | "on_site" | "on_break" | "off_duty";
                    /**
                     * Format: uuid
                     * @description The stop it is about; without it, the crew's current stop
                     */
                    jobId?: string;
                };
            };
        };
        responses: {
            /** @description The route with the status on its stop */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *       "date": "2026-12-03",
                     *       "crewId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "assigneeId": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                     *       "shift": {
                     *         "start": "08:00",
                     *         "end": "17:00"
                     *       },
                     *       "totalDriveMinutes": 74,
                     *       "overtimeMinutes": 0,
                     *       "stops": [
                     *         {
                     *           "sequence": 1,
                     *           "jobId": "7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a",
                     *           "etaLocal": "2026-12-03T08:21",
                     *           "departLocal": "2026-12-03T10:06",
                     *           "windowStart": "08:00",
                     *           "windowEnd": "17:00",
                     *           "driveMinutesFromPrevious": 21,
                     *           "status": "on_site"
                     *         },
                     *         {
                     *           "sequence": 2,
                     *           "jobId": "8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f",
                     *           "etaLocal": "2026-12-03T10:24",
                     *           "departLocal": "2026-12-03T12:24",
                     *           "windowStart": "10:00",
                     *           "windowEnd": "12:00",
                     *           "driveMinutesFromPrevious": 18,
                     *           "status": "planned"
                     *         }
                     *       ],
                     *       "violations": [],
                     *       "travelTimeSource": "great_circle",
                     *       "revision": 4
                     *     }
                     */
                    "application/json": components["schemas"]["Route"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Only the crew's own technicians or an ADMIN set a crew's status. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "forbidden",
                     *       "title": "Your role does not allow this.",
                     *       "status": 403,
                     *       "detail": "Only the crew's own technicians or an ADMIN set a crew's status.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such crew */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "not-found",
                     *       "title": "Not found.",
                     *       "status": 404,
                     *       "detail": "No such crew",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The crew has no route on 2026-12-03 (the workspace's today): plan or set its stops first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "conflict",
                     *       "title": "The request conflicts with the current state.",
                     *       "status": 409,
                     *       "detail": "The crew has no route on 2026-12-03 (the workspace's today): plan or set its stops first.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body, query or path failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "validation-failed",
                     *       "title": "The request did not pass validation.",
                     *       "status": 422,
                     *       "detail": "The request did not pass validation.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f",
                     *       "errors": {
                     *         "status": "Invalid option: expected one of \"en_route\"|\"on_site\"|\"on_break\"|\"off_duty\""
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getGraphiql: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head>
                     *       <meta charset="utf-8">
                     *       <title>Shade Office GraphQL</title>
                     *       <meta name="viewport" content="width=device-width, initial-scale=1">
                     *       <link rel="icon" href="d
                     */
                    "text/html": string;
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    graphql: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A GraphQL request: query, optional operationName and variables. One operation per request (no arrays). */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": "{ workOrders(first: 1) { nodes { id status } } }"
                 *     }
                 */
                "application/json": {
                    query: string;
                    operationName?: string | null;
                    variables?: {
                        [key: string]: unknown;
                    } | null;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The result, with extensions.cost; errors carry extensions.code */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "workOrders": {
                     *           "nodes": [
                     *             {
                     *               "id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                     *               "status": "DISPATCHED"
                     *             }
                     *           ],
                     *           "pageInfo": {
                     *             "hasNextPage": false,
                     *             "endCursor": "WyIyMDI2LTExLTI0VDA5OjEyOjQ0LjEyMzQ1NloiLCI1YTFmM2M3ZS05YjJkLTRlNmYtYThjMC0xZDNlNWY3YTliMmMiXQ"
                     *           }
                     *         }
                     *       },
                     *       "extensions": {
                     *         "cost": {
                     *           "requestedQueryCost": 22,
                     *           "actualQueryCost": 3,
                     *           "throttleStatus": {
                     *             "maximumAvailable": 40000,
                     *             "currentlyAvailable": 39997,
                     *             "restoreRate": 3333.33
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["GraphQLResponse"];
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getGraphqlSchema: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SDL */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example type Query {
                     *       """Quotes, newest first (ADMIN, SALES)."""
                     *       quotes(
                     *         """At most 100; the cost assumes this many."""
                     *         first: Int = 20
                     *
                     *         """The endCursor of the previous page."""
                     *         after: Str
                     */
                    "text/plain": string;
                };
            };
            /** @description Missing, malformed or foreign token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "unauthenticated",
                     *       "title": "A valid bearer token is required.",
                     *       "status": 401,
                     *       "detail": "Missing, malformed or foreign token.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited; back off by Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "rate-limited",
                     *       "title": "Too many requests.",
                     *       "status": 429,
                     *       "detail": "Rate limited; back off by Retry-After.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unhandled server error; quote the request_id. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "internal-error",
                     *       "title": "Internal server error.",
                     *       "status": 500,
                     *       "detail": "Internal server error.",
                     *       "request_id": "4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    quoteApprovedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event name */
                "x-service-event": string;
                /** @description The envelope id, the same on every retry and replay */
                "x-service-delivery": string;
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "quote.approved",
                 *       "id": "d4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b",
                 *       "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "created_at": "2026-11-21T16:45:00.000Z",
                 *       "data": {
                 *         "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "quote_number": 1042,
                 *         "status": "APPROVED",
                 *         "total_amount_cents": 240084,
                 *         "total_cost_cents": 144050,
                 *         "margin_percent": "0.4000",
                 *         "customer_name": "Jordan Rivera",
                 *         "customer_email": "jordan@example.test",
                 *         "approved_at": "2026-11-21T16:45:00.000Z",
                 *         "approved_by_user_id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["QuoteApprovedEvent"];
            };
        };
        responses: {
            /** @description Retried (with 429, 5xx, timeouts and network errors) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, like 408 and 5xx */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other 4xx: not retried; the delivery fails at once */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, up to 5 attempts in all */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    workOrderDispatchedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event name */
                "x-service-event": string;
                /** @description The envelope id, the same on every retry and replay */
                "x-service-delivery": string;
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "work_order.dispatched",
                 *       "id": "e7b9d1f3-5a7c-4e0b-92d4-6f8a0c2e4b9d",
                 *       "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "created_at": "2026-12-02T17:10:00.000Z",
                 *       "data": {
                 *         "work_order_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "status": "DISPATCHED",
                 *         "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "changed_by_user_id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                 *         "changed_at": "2026-12-02T17:10:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WorkOrderDispatchedEvent"];
            };
        };
        responses: {
            /** @description Retried (with 429, 5xx, timeouts and network errors) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, like 408 and 5xx */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other 4xx: not retried; the delivery fails at once */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, up to 5 attempts in all */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    workOrderCompletedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event name */
                "x-service-event": string;
                /** @description The envelope id, the same on every retry and replay */
                "x-service-delivery": string;
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "work_order.completed",
                 *       "id": "f8c0e2a4-6b8d-4f1c-a3e5-7a9b1d3f5c0e",
                 *       "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "created_at": "2026-12-03T15:42:18.000Z",
                 *       "data": {
                 *         "work_order_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "status": "COMPLETED",
                 *         "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "changed_by_user_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "changed_at": "2026-12-03T15:42:18.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WorkOrderCompletedEvent"];
            };
        };
        responses: {
            /** @description Retried (with 429, 5xx, timeouts and network errors) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, like 408 and 5xx */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other 4xx: not retried; the delivery fails at once */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, up to 5 attempts in all */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    workOrderPendingEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event name */
                "x-service-event": string;
                /** @description The envelope id, the same on every retry and replay */
                "x-service-delivery": string;
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "work_order.pending",
                 *       "id": "a9d1f3b5-7c9e-4a2d-b4f6-8b0c2e4a6d1f",
                 *       "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "created_at": "2026-12-02T18:05:00.000Z",
                 *       "data": {
                 *         "work_order_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "status": "PENDING",
                 *         "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "changed_by_user_id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                 *         "changed_at": "2026-12-02T18:05:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WorkOrderPendingEvent"];
            };
        };
        responses: {
            /** @description Retried (with 429, 5xx, timeouts and network errors) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, like 408 and 5xx */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other 4xx: not retried; the delivery fails at once */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, up to 5 attempts in all */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    workOrderCancelledEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event name */
                "x-service-event": string;
                /** @description The envelope id, the same on every retry and replay */
                "x-service-delivery": string;
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "work_order.cancelled",
                 *       "id": "b0e2a4c6-8d0f-4b3e-85a7-9c1d3f5b7e2a",
                 *       "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "created_at": "2026-12-02T18:30:00.000Z",
                 *       "data": {
                 *         "work_order_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "status": "CANCELLED",
                 *         "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "changed_by_user_id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                 *         "changed_at": "2026-12-02T18:30:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WorkOrderCancelledEvent"];
            };
        };
        responses: {
            /** @description Retried (with 429, 5xx, timeouts and network errors) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, like 408 and 5xx */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other 4xx: not retried; the delivery fails at once */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, up to 5 attempts in all */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    pricebookPublishedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event name */
                "x-service-event": string;
                /** @description The envelope id, the same on every retry and replay */
                "x-service-delivery": string;
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "pricebook.published",
                 *       "id": "e1a3c5e7-0b2d-4f4a-8c6e-1a3c5e7f9b2d",
                 *       "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "created_at": "2026-11-30T05:00:00.000Z",
                 *       "data": {
                 *         "pricebook_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *         "revision": "2026-11-26T15:04:05.123Z",
                 *         "effective_from": "2026-11-30T05:00:00.000Z",
                 *         "published_by_user_id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PricebookPublishedEvent"];
            };
        };
        responses: {
            /** @description Retried (with 429, 5xx, timeouts and network errors) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, like 408 and 5xx */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other 4xx: not retried; the delivery fails at once */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, up to 5 attempts in all */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    dispatchUpdatedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The event name */
                "x-service-event": string;
                /** @description The envelope id, the same on every retry and replay */
                "x-service-delivery": string;
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "dispatch.updated",
                 *       "id": "f2b4d6e8-1a3c-4e5f-9b7d-2c4e6a8b0d1f",
                 *       "organization_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *       "created_at": "2026-12-03T14:05:12.000Z",
                 *       "data": {
                 *         "id": "3c5e7a9b-1d3f-4a5c-8e7a-9b1d3f5a7c9e",
                 *         "date": "2026-12-03",
                 *         "assigneeId": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "totalDriveMinutes": 74,
                 *         "overtimeMinutes": 0,
                 *         "stops": [
                 *           {
                 *             "sequence": 1,
                 *             "jobId": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *             "etaLocal": "2026-12-03T08:25",
                 *             "status": "planned"
                 *           },
                 *           {
                 *             "sequence": 2,
                 *             "jobId": "8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b",
                 *             "etaLocal": "2026-12-03T11:40",
                 *             "status": "planned"
                 *           }
                 *         ],
                 *         "changeReason": "resequencing",
                 *         "revision": 4,
                 *         "previousAttributes": {
                 *           "totalDriveMinutes": 81,
                 *           "stops": [
                 *             {
                 *               "sequence": 1,
                 *               "jobId": "8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b",
                 *               "etaLocal": "2026-12-03T08:30",
                 *               "status": "planned"
                 *             },
                 *             {
                 *               "sequence": 2,
                 *               "jobId": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *               "etaLocal": "2026-12-03T11:10",
                 *               "status": "planned"
                 *             }
                 *           ]
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["DispatchUpdatedEvent"];
            };
        };
        responses: {
            /** @description Retried (with 429, 5xx, timeouts and network errors) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, like 408 and 5xx */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other 4xx: not retried; the delivery fails at once */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Retried, up to 5 attempts in all */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldJobDispatchedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "job.dispatched",
                 *       "event_id": "e3f5a7b9-1c3d-4e5f-8a7b-9c1d3e5f7a9b",
                 *       "occurred_at": "2026-12-02T17:10:00.000Z",
                 *       "data": {
                 *         "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "crew_id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                 *         "assigned_technician_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "dispatched_at": "2026-12-02T17:10:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldJobDispatchedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldJobStatusChangedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "job.status_changed",
                 *       "event_id": "f4a6b8c0-2d4e-4f6a-9b8c-0d2e4f6a8b0c",
                 *       "occurred_at": "2026-12-03T13:12:40.000Z",
                 *       "data": {
                 *         "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "from": "dispatched",
                 *         "to": "in_progress",
                 *         "changed_by_user_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "changed_at": "2026-12-03T13:12:40.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldJobStatusChangedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldJobCompletedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "job.completed",
                 *       "event_id": "d8e0f2a4-6b8c-4d0e-9f2a-4b6c8d0e2f4a",
                 *       "occurred_at": "2026-12-03T19:58:00.000Z",
                 *       "data": {
                 *         "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "hours_logged": 6.5,
                 *         "hours_estimated": 7.42,
                 *         "completed_at": "2026-12-03T19:58:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldJobCompletedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldChangeOrderSubmittedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "change_order.submitted",
                 *       "event_id": "a5b7c9d1-3e5f-4a7b-8c9d-1e3f5a7b9c1d",
                 *       "occurred_at": "2026-12-03T15:02:11.000Z",
                 *       "data": {
                 *         "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                 *         "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "quote_ref": "Q-1042",
                 *         "sequence": 1,
                 *         "reason": "Customer added a bedroom window on site",
                 *         "delta": {
                 *           "labour_hours": 1.1667,
                 *           "material_cost": 126.44,
                 *           "direct_cost": 243.11,
                 *           "sell": 374.02,
                 *           "currency": "CAD"
                 *         },
                 *         "revised_contract_value": {
                 *           "previous": 2480.5,
                 *           "current": 2854.52,
                 *           "currency": "CAD"
                 *         },
                 *         "margin": {
                 *           "applied": 0.35,
                 *           "floor_engaged": false
                 *         },
                 *         "raised_by_user_id": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldChangeOrderSubmittedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldChangeOrderApprovedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "change_order.approved",
                 *       "event_id": "b6c8d0e2-4f6a-4b8c-9d0e-2f4a6b8c0d2e",
                 *       "occurred_at": "2026-12-03T15:20:45.000Z",
                 *       "data": {
                 *         "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                 *         "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "quote_ref": "Q-1042",
                 *         "sequence": 1,
                 *         "reason": "Customer added a bedroom window on site",
                 *         "delta": {
                 *           "labour_hours": 1.1667,
                 *           "material_cost": 126.44,
                 *           "direct_cost": 243.11,
                 *           "sell": 374.02,
                 *           "currency": "CAD"
                 *         },
                 *         "revised_contract_value": {
                 *           "previous": 2480.5,
                 *           "current": 2854.52,
                 *           "currency": "CAD"
                 *         },
                 *         "margin": {
                 *           "applied": 0.35,
                 *           "floor_engaged": false
                 *         },
                 *         "approved_by": {
                 *           "name": "Jordan Rivera",
                 *           "role": "Homeowner",
                 *           "method": "on_device_signature"
                 *         },
                 *         "quote_id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "invoice": true
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldChangeOrderApprovedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldChangeOrderRejectedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "change_order.rejected",
                 *       "event_id": "c7d9e1f3-5a7b-4c9d-8e1f-3a5b7c9d1e3f",
                 *       "occurred_at": "2026-12-03T15:21:30.000Z",
                 *       "data": {
                 *         "change_order_id": "8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b",
                 *         "job_id": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *         "quote_ref": "Q-1042",
                 *         "sequence": 1,
                 *         "rejected_by": {
                 *           "name": "Avery Admin",
                 *           "role": "ADMIN"
                 *         },
                 *         "reason": "The customer keeps the bedroom blind for a later visit"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldChangeOrderRejectedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldQuoteCreatedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "quote.created",
                 *       "event_id": "c1d3e5f7-9a1b-4c3d-8e5f-7a9b1c3d5e7f",
                 *       "occurred_at": "2026-11-20T15:04:05.000Z",
                 *       "data": {
                 *         "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "reference": "Q-1042",
                 *         "revision": 1,
                 *         "status": "draft",
                 *         "customerId": "6e8a0c2e-4b6d-4f8a-9c1e-3b5d7f9a1c2e",
                 *         "ownerId": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                 *         "currency": "CAD",
                 *         "totals": {
                 *           "subtotal": 2400.84,
                 *           "taxTotal": 312.11,
                 *           "grandTotal": 2712.95,
                 *           "marginPct": 40,
                 *           "currency": "CAD"
                 *         },
                 *         "pricebookRevision": "2026-11-01T00:00:00.000Z",
                 *         "approval": {
                 *           "required": false,
                 *           "reason": null
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldQuoteCreatedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldInvoiceGeneratedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "invoice.generated",
                 *       "event_id": "d2e4f6a8-0b2c-4d4e-9f6a-8b0c2d4e6f8a",
                 *       "occurred_at": "2026-11-21T16:45:09.000Z",
                 *       "data": {
                 *         "id": "in_1QexampleInvoice0042",
                 *         "reference": "Q-1042",
                 *         "sourceType": "quote",
                 *         "sourceId": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "quoteId": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *         "customerId": "6e8a0c2e-4b6d-4f8a-9c1e-3b5d7f9a1c2e",
                 *         "currency": "CAD",
                 *         "status": "open",
                 *         "totals": {
                 *           "subtotal": 2400.84,
                 *           "taxTotal": 312.11,
                 *           "grandTotal": 2712.95,
                 *           "currency": "CAD"
                 *         },
                 *         "taxLines": [
                 *           {
                 *             "code": "HST",
                 *             "rate": 0.13,
                 *             "amount": 312.11
                 *           }
                 *         ],
                 *         "partsConsumed": [],
                 *         "erpSync": {
                 *           "target": "accounting",
                 *           "status": "succeeded"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldInvoiceGeneratedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    fieldDispatchUpdatedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation */
                "x-service-signature": string;
                /** @description The envelope's event_id, the same on every retry and replay */
                "x-service-event-id": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event": "dispatch.updated",
                 *       "event_id": "f2b4d6e8-1a3c-4e5f-9b7d-2c4e6a8b0d1f",
                 *       "occurred_at": "2026-12-03T14:05:12.000Z",
                 *       "data": {
                 *         "id": "3c5e7a9b-1d3f-4a5c-8e7a-9b1d3f5a7c9e",
                 *         "date": "2026-12-03",
                 *         "assigneeId": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *         "totalDriveMinutes": 74,
                 *         "overtimeMinutes": 0,
                 *         "stops": [
                 *           {
                 *             "sequence": 1,
                 *             "jobId": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *             "etaLocal": "2026-12-03T08:25",
                 *             "status": "planned"
                 *           },
                 *           {
                 *             "sequence": 2,
                 *             "jobId": "8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b",
                 *             "etaLocal": "2026-12-03T11:40",
                 *             "status": "planned"
                 *           }
                 *         ],
                 *         "changeReason": "resequencing",
                 *         "revision": 4,
                 *         "previousAttributes": {
                 *           "totalDriveMinutes": 81,
                 *           "stops": [
                 *             {
                 *               "sequence": 1,
                 *               "jobId": "8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b",
                 *               "etaLocal": "2026-12-03T08:30",
                 *               "status": "planned"
                 *             },
                 *             {
                 *               "sequence": 2,
                 *               "jobId": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *               "etaLocal": "2026-12-03T11:10",
                 *               "status": "planned"
                 *             }
                 *           ]
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["FieldDispatchUpdatedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventsQuoteCreatedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; reject a t older than 300 seconds */
                "service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "c1d3e5f7-9a1b-4c3d-8e5f-7a9b1c3d5e7f",
                 *       "type": "quote.created",
                 *       "apiVersion": "2026-07-01",
                 *       "createdAt": "2026-11-20T15:04:05.000Z",
                 *       "livemode": false,
                 *       "data": {
                 *         "object": {
                 *           "id": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *           "reference": "Q-1042",
                 *           "revision": 1,
                 *           "status": "draft",
                 *           "customerId": "6e8a0c2e-4b6d-4f8a-9c1e-3b5d7f9a1c2e",
                 *           "ownerId": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
                 *           "currency": "CAD",
                 *           "totals": {
                 *             "subtotal": 2400.84,
                 *             "taxTotal": 312.11,
                 *             "grandTotal": 2712.95,
                 *             "marginPct": 40,
                 *             "currency": "CAD"
                 *           },
                 *           "pricebookRevision": "2026-11-01T00:00:00.000Z",
                 *           "approval": {
                 *             "required": false,
                 *             "reason": null
                 *           }
                 *         },
                 *         "previousAttributes": null
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["EventsQuoteCreatedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventsInvoiceGeneratedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; reject a t older than 300 seconds */
                "service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "d2e4f6a8-0b2c-4d4e-9f6a-8b0c2d4e6f8a",
                 *       "type": "invoice.generated",
                 *       "apiVersion": "2026-07-01",
                 *       "createdAt": "2026-11-21T16:45:09.000Z",
                 *       "livemode": false,
                 *       "data": {
                 *         "object": {
                 *           "id": "in_1QexampleInvoice0042",
                 *           "reference": "Q-1042",
                 *           "sourceType": "quote",
                 *           "sourceId": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *           "quoteId": "3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e",
                 *           "customerId": "6e8a0c2e-4b6d-4f8a-9c1e-3b5d7f9a1c2e",
                 *           "currency": "CAD",
                 *           "status": "open",
                 *           "totals": {
                 *             "subtotal": 2400.84,
                 *             "taxTotal": 312.11,
                 *             "grandTotal": 2712.95,
                 *             "currency": "CAD"
                 *           },
                 *           "taxLines": [
                 *             {
                 *               "code": "HST",
                 *               "rate": 0.13,
                 *               "amount": 312.11
                 *             }
                 *           ],
                 *           "partsConsumed": [],
                 *           "erpSync": {
                 *             "target": "accounting",
                 *             "status": "succeeded"
                 *           }
                 *         },
                 *         "previousAttributes": null
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["EventsInvoiceGeneratedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventsPricebookPublishedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; reject a t older than 300 seconds */
                "service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "e1a3c5e7-0b2d-4f4a-8c6e-1a3c5e7f9b2d",
                 *       "type": "pricebook.published",
                 *       "apiVersion": "2026-07-01",
                 *       "createdAt": "2026-11-30T05:00:00.000Z",
                 *       "livemode": false,
                 *       "data": {
                 *         "object": {
                 *           "pricebook_id": "0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b",
                 *           "revision": "2026-11-26T15:04:05.123Z",
                 *           "effective_from": "2026-11-30T05:00:00.000Z",
                 *           "published_by_user_id": "8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a"
                 *         },
                 *         "previousAttributes": null
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["EventsPricebookPublishedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    eventsDispatchUpdatedEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; reject a t older than 300 seconds */
                "service-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "f2b4d6e8-1a3c-4e5f-9b7d-2c4e6a8b0d1f",
                 *       "type": "dispatch.updated",
                 *       "apiVersion": "2026-07-01",
                 *       "createdAt": "2026-12-03T14:05:12.000Z",
                 *       "livemode": false,
                 *       "data": {
                 *         "object": {
                 *           "id": "3c5e7a9b-1d3f-4a5c-8e7a-9b1d3f5a7c9e",
                 *           "date": "2026-12-03",
                 *           "assigneeId": "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f",
                 *           "totalDriveMinutes": 74,
                 *           "overtimeMinutes": 0,
                 *           "stops": [
                 *             {
                 *               "sequence": 1,
                 *               "jobId": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *               "etaLocal": "2026-12-03T08:25",
                 *               "status": "planned"
                 *             },
                 *             {
                 *               "sequence": 2,
                 *               "jobId": "8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b",
                 *               "etaLocal": "2026-12-03T11:40",
                 *               "status": "planned"
                 *             }
                 *           ],
                 *           "changeReason": "resequencing",
                 *           "revision": 4
                 *         },
                 *         "previousAttributes": {
                 *           "totalDriveMinutes": 81,
                 *           "stops": [
                 *             {
                 *               "sequence": 1,
                 *               "jobId": "8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b",
                 *               "etaLocal": "2026-12-03T08:30",
                 *               "status": "planned"
                 *             },
                 *             {
                 *               "sequence": 2,
                 *               "jobId": "5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c",
                 *               "etaLocal": "2026-12-03T11:10",
                 *               "status": "planned"
                 *             }
                 *           ]
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["EventsDispatchUpdatedEvent"];
            };
        };
        responses: {
            /** @description Received: the delivery is done */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer: retried on the format's schedule */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
