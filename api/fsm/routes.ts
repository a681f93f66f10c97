import { route, type RouteHost } from '../http/route';
import { auditContext } from '../http/audit-actor';
import { ADMIN_ONLY, FIELD } from '../http/roles';
import { PROBLEM_CONTENT_TYPE, ProblemSchema, problemExample } from '../v1/problem';
import type { JobService } from './job-service';
import type { CrewService } from './crew-service';
import type { ChangeOrderService } from './change-order-service';
import {
  ApproveChangeOrderBody, AssignCrewBody, ChangeOrder, ChangeOrderBody, ChangeOrderIdParams, Crew, RejectChangeOrderBody, CrewBody, CrewIdParams, CrewList, CrewListQuery, CrewPatchBody, JobDetail, JobHistoryPage, JobHistoryQuery, JobIdParams, JobListQuery, JobPage, MaterialDrawBody, PatchJobBody, TimeEntryBody,
} from './schemas';
import { CHANGE_ORDER_EXAMPLE, CREW_EXAMPLE, JOB_DETAIL_EXAMPLE, JOB_HISTORY_EXAMPLE, JOB_PAGE_EXAMPLE } from './examples';

const TAGS = ['Field sync'];
const problem = (status: number, description: string, type?: Parameters<typeof problemExample>[3]) => ({
  description,
  schema: ProblemSchema,
  contentType: PROBLEM_CONTENT_TYPE,
  example: problemExample(status, description, undefined, type),
});
const JOB_NOT_FOUND = problem(404, 'No such job in the tenant, or (a TECHNICIAN) not a job of their crews', 'job-not-found');

/** Document 001 sections 2-4 with D10-D11: the field-sync job interface. */
export function fsmRoutes(host: RouteHost, deps: { jobs: JobService; crews: CrewService; changeOrders: ChangeOrderService }): void {
  route(host, {
    method: 'get',
    path: '/v1/fsm/jobs',
    operationId: 'listJobs',
    summary: 'Jobs, oldest change first: the dispatch board\'s incremental feed',
    description:
      'Ordered by `updated_at` then `job_id`. Poll with the newest `updated_at` you have seen as `updated_since` (strict), or with `next_cursor`: ' +
      'either way no change is ever missed, even one whose transaction commits after a later one (docs/field-sync.md). ' +
      'ADMIN and SALES see every job of the tenant, a TECHNICIAN only those of their crews.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    query: JobListQuery,
    responses: {
      200: { description: 'A page of jobs', schema: JobPage, example: JOB_PAGE_EXAMPLE },
      400: problem(400, 'A cursor this feed did not hand out', 'validation-failed'),
    },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.jobs.list(caller, query));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/fsm/jobs/:job_id',
    operationId: 'getJob',
    summary: 'One job with its change orders, time entries and material draws',
    description: 'The job with its crew, site, schedule and logged hours; 404 `job-not-found` when the id is unknown to the tenant or, for a TECHNICIAN, not a job of their crews.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    params: JobIdParams,
    responses: { 200: { description: 'The job', schema: JobDetail, example: JOB_DETAIL_EXAMPLE }, 404: JOB_NOT_FOUND },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.jobs.get(caller, params.job_id));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/fsm/jobs/:job_id/history',
    operationId: 'getJobHistory',
    summary: 'A job\'s history, oldest first: every move, crew change, time entry, material draw and change-order step, with who and when',
    description:
      'Append-only, so dispatch stays reconstructable. Page with `next_cursor`, which is given even on the last page: resume from it to see only later entries. ' +
      '404 `job-not-found` as for the job itself (a TECHNICIAN sees only the jobs of their crews).',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    params: JobIdParams,
    query: JobHistoryQuery,
    responses: {
      200: { description: 'A page of history entries', schema: JobHistoryPage, example: JOB_HISTORY_EXAMPLE },
      400: problem(400, 'A cursor this history did not hand out', 'validation-failed'),
      404: JOB_NOT_FOUND,
    },
    handler: async ({ res, caller, params, query }) => {
      res.json(await deps.jobs.history(caller, params.job_id, query));
    },
  });

  route(host, {
    method: 'patch',
    path: '/v1/fsm/jobs/:job_id',
    operationId: 'updateJob',
    summary: 'Move a job to another status (the job status table), or give it its customer (ADMIN)',
    description:
      'scheduled: dispatched (a crew is assigned), cancelled; dispatched: in_progress, scheduled, complete, cancelled; in_progress: on_hold, complete, cancelled; ' +
      'on_hold: in_progress, cancelled; complete and cancelled are final. Anything else is 409 `invalid-transition`; a repeated status is 200 with nothing changed. ' +
      'Each move records `job.status_changed`, `job.dispatched` or `job.completed` as they apply, and `work_order.*` when the work order\'s status changes with it. ' +
      '`completed_at` (only with complete) is the device\'s sign-off time: not in the future (60 s skew), not before actual_start. ' +
      'Completing is never refused for the job\'s money: a job without a quote is invoiced its time and materials to its customer when it completes, and without one that invoice waits for a customer (`completion_invoice.status` `awaiting_customer`, with what it would bill) until an ADMIN sets `customer_id`, which issues it; nor for what the price book lacks (no price book, no STANDARD labour tier, a drawn SKU no revision prices): the invoice waits for prices (`completion_invoice.status` `awaiting_price`, `missing_prices` says what) until an operator prices it again on the price book then current (`npm run ops -- retry --job`). ' +
      '`customer_id` (ADMIN only, 403 otherwise): a customer of the tenant (422 `validation-failed` at `customer_id` otherwise), or null to clear it before completion; sent with a status, it is set first. ' +
      '409 `conflict` for a job with a quote (invoiced to its quote\'s customer), a cancelled job, or a complete job whose invoice is already billed. Records `job.customer_changed` and an audit event (`work_order.customer_changed`). ' +
      'ADMIN, or a TECHNICIAN of the job\'s crew.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: FIELD,
    params: JobIdParams,
    body: PatchJobBody,
    bodyExample: { status: 'complete', completed_at: '2026-12-03T17:02:00Z' },
    responses: {
      200: { description: 'Moved, or unchanged for a repeated status', schema: JobDetail, example: JOB_DETAIL_EXAMPLE },
      403: problem(403, 'customer_id sent by someone other than an ADMIN', 'forbidden'),
      404: JOB_NOT_FOUND,
      409: problem(409, 'The table does not allow the move', 'invalid-transition'),
      422: problem(422, 'customer_id names no customer of the tenant', 'validation-failed'),
    },
    handler: async ({ req, res, caller, params, body }) => {
      res.json(await deps.jobs.patch(caller, params.job_id, body, auditContext(req)));
    },
  });

  route(host, {
    method: 'put',
    path: '/v1/fsm/jobs/:job_id/crew',
    operationId: 'assignJobCrew',
    summary: 'Assign a crew to a job (ADMIN); the work order\'s technician follows its foreman',
    description: '409 `conflict` when the job is complete or cancelled, or a crew member is deactivated; 404 `not-found` for an unknown crew.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: JobIdParams,
    body: AssignCrewBody,
    bodyExample: { crew_id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f' },
    responses: {
      200: { description: 'The job with its crew', schema: JobDetail, example: JOB_DETAIL_EXAMPLE },
      404: problem(404, 'No such job or crew'),
      409: problem(409, 'Finished job, or a crew with a deactivated technician'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.jobs.assignCrew(caller, params.job_id, body.crew_id));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/jobs/:job_id/time-entries',
    operationId: 'addTimeEntry',
    summary: 'Log time on a job (a crew technician for themselves, ADMIN for anyone)',
    description: 'No overlap with another entry of the same technician (409 `conflict`), at most 16 hours, not on a complete or cancelled job (409 `conflict`).',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: FIELD,
    params: JobIdParams,
    body: TimeEntryBody,
    bodyExample: { started_at: '2026-12-03T13:15:00Z', ended_at: '2026-12-03T16:45:00Z', notes: 'Brackets and two rollers' },
    responses: {
      201: { description: 'The job with the entry', schema: JobDetail, example: JOB_DETAIL_EXAMPLE },
      404: JOB_NOT_FOUND,
      409: problem(409, 'Overlaps another entry, or the job is finished'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.status(201).json(await deps.jobs.addTimeEntry(caller, params.job_id, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/jobs/:job_id/material-draws',
    operationId: 'addMaterialDraw',
    summary: 'Draw material for a job',
    description: '`sku` an active SKU of the current rate card, `quantity` a positive decimal string in its unit. Not on a complete or cancelled job (409 `conflict`).',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: FIELD,
    params: JobIdParams,
    body: MaterialDrawBody,
    bodyExample: { sku: 'HW-ROLLER-STD', quantity: '2', van_id: 'VAN-3' },
    responses: {
      201: { description: 'The job with the draw', schema: JobDetail, example: JOB_DETAIL_EXAMPLE },
      404: JOB_NOT_FOUND,
      409: problem(409, 'The job is finished'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.status(201).json(await deps.jobs.addMaterialDraw(caller, params.job_id, body));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/fsm/crews',
    operationId: 'listCrews',
    summary: 'Crews (a TECHNICIAN sees the crews they belong to)',
    description: 'Each crew’s name, foreman and members, by name. Pass `next_cursor` back as `cursor` while `has_more` is true.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    query: CrewListQuery,
    responses: {
      200: { description: 'A page of crews', schema: CrewList, example: { data: [CREW_EXAMPLE], next_cursor: null, has_more: false } },
      400: { description: 'A cursor this list did not hand out', schema: ProblemSchema, contentType: PROBLEM_CONTENT_TYPE },
    },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.crews.list(caller, query));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/crews',
    operationId: 'createCrew',
    summary: 'Make a crew (ADMIN)',
    description: 'A name, a foreman and member technicians, all active technicians of the tenant (422 `validation-failed` naming who is not).',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    body: CrewBody,
    bodyExample: { name: 'Crew North', foreman_id: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', member_ids: ['a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'] },
    responses: { 201: { description: 'The crew', schema: Crew, example: CREW_EXAMPLE } },
    handler: async ({ res, caller, body }) => {
      res.status(201).json(await deps.crews.create(caller, body));
    },
  });

  route(host, {
    method: 'patch',
    path: '/v1/fsm/crews/:crew_id',
    operationId: 'updateCrew',
    summary: 'Change a crew (ADMIN): its jobs show the change, and their technician follows the foreman',
    description: 'Omitted fields stay; `member_ids` replaces the members besides the foreman.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: CrewIdParams,
    body: CrewPatchBody,
    bodyExample: { name: 'Crew North (evenings)' },
    responses: { 200: { description: 'The crew', schema: Crew, example: CREW_EXAMPLE }, 404: problem(404, 'No such crew') },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.crews.update(caller, params.crew_id, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/jobs/:job_id/change-orders',
    operationId: 'raiseChangeOrder',
    summary: 'Raise a change order, priced at once by the pricing engine',
    description:
      'Lines in the line-item shape of POST /api/v1/quotes/calculate and optional extra labour hours (negative for work no longer needed), with a reason (10-500 characters). ' +
      'Priced on the rate-card revision of the job\'s quote at its applied margin, raised to the tenant\'s floor where below it (`margin.floor_engaged`); numbered per job. ' +
      'Money is dollars from integer cents. 409 `conflict` on a complete or cancelled job or a job without a quote; an unknown or inactive SKU is 422 `validation-failed`. ' +
      'Records `change_order.submitted`.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: FIELD,
    params: JobIdParams,
    body: ChangeOrderBody,
    bodyExample: {
      reason: 'Customer added a bedroom window on site',
      line_items: [{ reference: 'Bedroom', widthInches: 35.25, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD' }],
      labour_hours: 0.5,
    },
    responses: { 201: { description: 'The change order, submitted', schema: ChangeOrder, example: CHANGE_ORDER_EXAMPLE }, 404: JOB_NOT_FOUND, 409: problem(409, 'The job is finished or has no quote') },
    handler: async ({ res, caller, params, body }) => {
      res.status(201).json(await deps.changeOrders.raise(caller, params.job_id, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/change-orders/:change_order_id/approve',
    operationId: 'approveChangeOrder',
    summary: 'Approve a change order (ADMIN any method; a crew TECHNICIAN only on_device_signature)',
    description:
      'Records `change_order.approved`; when the job\'s quote is approved, the payments leg invoices the delta as the workflow `change-order-invoice-<id>` ' +
      '(net 14, the tax lines of the quote’s region, every provider call keyed by the change order). 409 `conflict` when already decided or the job is finished.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: FIELD,
    params: ChangeOrderIdParams,
    body: ApproveChangeOrderBody,
    bodyExample: { approved_by: { name: 'Jordan Rivera', role: 'Homeowner', method: 'on_device_signature' } },
    responses: { 200: { description: 'The change order, approved', schema: ChangeOrder, example: { ...CHANGE_ORDER_EXAMPLE, status: 'approved' } }, 404: problem(404, 'No such change order'), 409: problem(409, 'Already decided, or the job is finished') },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.changeOrders.approve(caller, params.change_order_id, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/change-orders/:change_order_id/reject',
    operationId: 'rejectChangeOrder',
    summary: 'Reject a change order (ADMIN, or a TECHNICIAN of the crew)',
    description: 'Records `change_order.rejected` with `rejected_by` and `reason`. 409 `conflict` when already decided or the job is finished.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: FIELD,
    params: ChangeOrderIdParams,
    body: RejectChangeOrderBody,
    bodyExample: { reason: 'Customer decided against the extra window' },
    responses: { 200: { description: 'The change order, rejected', schema: ChangeOrder, example: { ...CHANGE_ORDER_EXAMPLE, status: 'rejected' } }, 404: problem(404, 'No such change order'), 409: problem(409, 'Already decided, or the job is finished') },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.changeOrders.reject(caller, params.change_order_id, body.reason));
    },
  });
}
