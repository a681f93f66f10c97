import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { notFound, validationFailed } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import { CREW_KEYSET, crewById, crewPage, insertCrew, notActiveTechnicians, updateCrew, type CrewRow } from '../../db/fsm/crews';
import { lockJobClock } from '../../db/fsm/jobs';
import type { Crew, CrewBody, CrewPatchBody } from './schemas';
import { pageOf } from '../../db/cursor';
import { v1CursorPosition, v1PageOf } from '../v1/page';

const REASONS = { unknown: 'No such user in this workspace.', not_technician: 'Not a TECHNICIAN.', deactivated: 'The technician is deactivated.' } as const;

export function toCrew(row: CrewRow): Crew {
  return { crew_id: row.id, name: row.name, foreman: row.foreman_user_id ? { user_id: row.foreman_user_id, name: row.foreman_name ?? '' } : null, member_ids: row.member_ids, headcount: row.member_ids.length };
}

/** D11: crews; only ADMIN manages them (D10), a technician lists the crews they belong to. */
export class CrewService {
  constructor(private readonly em: EntityManager) {}

  /** By name, keyset-paged; a technician's own crews only (D10). */
  list(caller: Caller, query: { limit: number; cursor?: string | undefined }): Promise<{ data: Crew[]; next_cursor: string | null; has_more: boolean }> {
    const after = v1CursorPosition(CREW_KEYSET, query.cursor);
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const rows = await crewPage(tx, { memberId: caller.role === 'TECHNICIAN' ? caller.userId : undefined, after, limit: query.limit });
      return v1PageOf(pageOf(rows, query.limit, CREW_KEYSET), toCrew);
    });
  }

  create(caller: Caller, body: CrewBody): Promise<Crew> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      await this.checkPeople(tx, body.foreman_id, body.member_ids);
      const id = await insertCrew(tx, { name: body.name, foremanId: body.foreman_id, memberIds: body.member_ids });
      return toCrew((await crewById(tx, id))!);
    });
  }

  update(caller: Caller, id: string, body: CrewPatchBody): Promise<Crew> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      // The crew's jobs show its foreman and headcount: they change with it (clock first, D11 sync).
      await lockJobClock(tx);
      const current = await crewById(tx, id, true);
      if (!current) throw notFound('No such crew in this workspace.');
      const foremanId = body.foreman_id ?? current.foreman_user_id;
      // D20: a crew its last member left has no foreman until the office names one.
      if (!foremanId) throw validationFailed({ foreman_id: 'The crew has no foreman: name one.' });
      const memberIds = body.member_ids ?? current.member_ids.filter((m) => m !== current.foreman_user_id);
      await this.checkPeople(tx, foremanId, memberIds);
      await updateCrew(tx, id, { name: body.name ?? current.name, foremanId, memberIds });
      return toCrew((await crewById(tx, id))!);
    });
  }

  /** A name, a foreman and member technicians, all active technicians of the tenant (D11). */
  private async checkPeople(tx: EntityManager, foremanId: string, memberIds: readonly string[]): Promise<void> {
    const errors: Record<string, string> = {};
    for (const bad of await notActiveTechnicians(tx, [foremanId])) errors.foreman_id = REASONS[bad.reason];
    const badMembers = await notActiveTechnicians(tx, memberIds);
    for (const bad of badMembers) errors[`member_ids.${memberIds.indexOf(bad.id)}`] ??= REASONS[bad.reason];
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
  }
}
