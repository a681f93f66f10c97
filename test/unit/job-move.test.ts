import { describe, expect, it } from '@jest/globals';
import { EVENT_DATA_SCHEMAS } from '../../domain/events/event-data';
import { JOB_STATUSES, JOB_TRANSITIONS, PROJECTION, TERMINAL_JOB_STATUSES, decideJobTransition, jobStatusAfterWorkOrderMove, type JobStatus } from '../../domain/jobs/job-status-table';
import { jobMoveEvents, planJobMove, type JobMoveFacts, type MovingJob } from '../../domain/jobs/job-move';
import { WORK_ORDER_STATUSES, decideTransition } from '../../domain/work-orders/status-table';

/**
 * D11: what a job move records, walked over every move `moveJob` is given: each pair of D11's
 * table (PATCH /v1/fsm/jobs) and each section 3.2 move of the work order a job projects to (PATCH
 * /api/v1/work-orders/{id}/status). The expectations are the rules as the decisions state them,
 * checked against the other table where two meet, not the implementation's tables read back.
 */
const USER = '8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a';
const CHANGED_AT = new Date('2026-12-03T13:12:40.123Z');
const WORK_ORDER_CHANGED_AT = new Date('2026-12-03T13:12:40.131Z');
const SIGNED_OFF_AT = new Date('2026-12-03T13:05:00.000Z');
const job = (from: JobStatus): MovingJob => ({
  id: '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c',
  job_status: from,
  crew_id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
  quote_id: '3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e',
  assigned_technician_id: '2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f',
});

/** What the database would answer for the move: the facts are given whether the plan asks for them or not. */
const facts = (from: JobStatus, to: JobStatus, signedOffAt: Date | null = null): JobMoveFacts => ({
  job: job(from),
  to,
  userId: USER,
  changedAt: CHANGED_AT,
  signedOffAt,
  hours: { logged: '6.50', estimated: '7.42' },
  workOrderChangedAt: WORK_ORDER_CHANGED_AT,
});

const d11Moves = JOB_TRANSITIONS.map((t) => [t.from, t.to] as const);
const apiMoves = JOB_STATUSES.filter((from) => !TERMINAL_JOB_STATUSES.includes(from)).flatMap((from) =>
  WORK_ORDER_STATUSES.filter((to) => decideTransition(PROJECTION[from], to).kind === 'move').map((to) => [from, jobStatusAfterWorkOrderMove(to)] as const),
);
const moves = [...new Map([...d11Moves, ...apiMoves].map((m) => [m.join('>'), m])).values()];

describe('the moves walked', () => {
  it('are every pair of D11\'s table and every /api/ move, each judged a move by its own table', () => {
    expect(d11Moves).toHaveLength(11);
    for (const [from, to] of d11Moves) expect(decideJobTransition(from, to, true)).toEqual({ kind: 'move' });
    // /api/ moves an in_progress or on_hold job too (D11: DISPATCHED to COMPLETED completes it), so some are outside D11's table.
    expect(moves.length).toBeGreaterThan(d11Moves.length);
  });
});

describe.each(moves)('a job moved from %s to %s', (from, to) => {
  const plan = planJobMove(from, to);
  const events = jobMoveEvents(plan, facts(from, to));
  const names = events.map((e) => e.event);

  it('records job.status_changed first, with from, to, who and when', () => {
    expect(events[0]).toEqual({
      event: 'job.status_changed',
      data: { job_id: job(from).id, from, to, changed_by_user_id: USER, changed_at: CHANGED_AT.toISOString() },
      at: CHANGED_AT,
    });
  });

  it('records job.dispatched when it is dispatched (crew and technician), job.completed at its sign-off (hours), nothing more of the job', () => {
    const jobEvents = names.filter((n) => n.startsWith('job.'));
    expect(jobEvents).toEqual(['job.status_changed', ...(to === 'dispatched' ? ['job.dispatched'] : []), ...(to === 'complete' ? ['job.completed'] : [])]);
    expect(plan.completes).toBe(to === 'complete');
    const dispatched = events.find((e) => e.event === 'job.dispatched');
    if (dispatched) expect(dispatched.data).toEqual({ job_id: job(from).id, crew_id: job(from).crew_id, assigned_technician_id: job(from).assigned_technician_id, dispatched_at: CHANGED_AT.toISOString() });
    const completed = events.find((e) => e.event === 'job.completed');
    if (completed) expect(completed.data).toEqual({ job_id: job(from).id, hours_logged: 6.5, hours_estimated: 7.42, completed_at: CHANGED_AT.toISOString() });
  });

  it('records the work order\'s event when the status /api/ shows changes, the one section 3.2 names for that move, after the job\'s', () => {
    const [before, after] = [PROJECTION[from], PROJECTION[to]];
    const workOrderEvents = events.filter((e) => e.event.startsWith('work_order.'));
    if (before === after) {
      expect(plan.workOrder).toBeNull();
      expect(workOrderEvents).toEqual([]);
      return;
    }
    expect(plan.workOrder).toEqual({ from: before, to: after });
    const decision = decideTransition(before, after);
    expect(decision.kind).toBe('move');
    expect(workOrderEvents).toEqual([
      {
        event: decision.kind === 'move' ? decision.event : 'none',
        // Document 000 section 6.2: no cost, margin or quote total.
        data: { work_order_id: job(from).id, status: after, quote_id: job(from).quote_id, assigned_technician_id: job(from).assigned_technician_id, changed_by_user_id: USER, changed_at: WORK_ORDER_CHANGED_AT.toISOString() },
        at: WORK_ORDER_CHANGED_AT,
      },
    ]);
    expect(names.at(-1)).toBe(workOrderEvents[0]!.event);
  });

  it('records data that parses with each event\'s one schema', () => {
    for (const e of events) expect({ event: e.event, issues: EVENT_DATA_SCHEMAS[e.event].safeParse(e.data).error?.issues ?? [] }).toEqual({ event: e.event, issues: [] });
  });
});

describe('the facts a move needs', () => {
  it('a sign-off time sent with the move is the completion time', () => {
    const events = jobMoveEvents(planJobMove('in_progress', 'complete'), facts('in_progress', 'complete', SIGNED_OFF_AT));
    expect(events.find((e) => e.event === 'job.completed')?.data).toMatchObject({ completed_at: SIGNED_OFF_AT.toISOString() });
  });

  it('a move to complete without its hours, or a projected move without its history time, is a programming error', () => {
    expect(() => jobMoveEvents(planJobMove('in_progress', 'complete'), { ...facts('in_progress', 'complete'), hours: null })).toThrow(/hours/);
    expect(() => jobMoveEvents(planJobMove('scheduled', 'cancelled'), { ...facts('scheduled', 'cancelled'), workOrderChangedAt: null })).toThrow(/history/);
  });

  it('a job without crew, technician or quote records them as null', () => {
    const bare = { ...facts('scheduled', 'dispatched'), job: { ...job('scheduled'), crew_id: null, quote_id: null, assigned_technician_id: null } };
    const events = jobMoveEvents(planJobMove('scheduled', 'dispatched'), bare);
    expect(events.map((e) => e.event)).toEqual(['job.status_changed', 'job.dispatched', 'work_order.dispatched']);
    for (const e of events) expect(EVENT_DATA_SCHEMAS[e.event].safeParse(e.data).success).toBe(true);
  });
});
