import type { Response } from 'express';
import { z } from 'zod';
import { EXAMPLE_REQUEST_ID } from '../http/error-examples';
import { ERROR_KINDS, ERROR_RENDERINGS, PROBLEM_TYPES, kindOfStatus, type ProblemType } from '../../domain/errors/error-kinds';

/**
 * D10: errors under /v1/ are RFC 9457 problem details, `application/problem+json`, with one of
 * D10's `type` slugs (domain/errors/error-kinds.ts gives each kind its type and title). The
 * section 7 envelope of /api/ is not used there.
 */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** D10: the paths whose errors are problem details; as case-insensitive as Express's own path matching. */
export const isProblemPath = (path: string) => /^\/v1(?:\/|$)/i.test(path);

export interface Problem {
  type: ProblemType;
  title: string;
  status: number;
  detail: string;
  request_id: string | null;
  /** validation-failed only: the first complaint per dotted path. */
  errors?: Record<string, string>;
}

export const ProblemSchema = z
  .object({
    type: z.enum(PROBLEM_TYPES),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    request_id: z.string().nullable(),
    errors: z.record(z.string(), z.string()).optional().meta({ description: 'validation-failed only: the first complaint per dotted path.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details.' });

export function sendProblem(res: Response, problem: Problem): void {
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

export function problemExample(status: number, detail: string, errors?: Record<string, string>, type?: ProblemType): Problem {
  const general = kindOfStatus(status);
  const chosen = type ?? (general && ERROR_RENDERINGS[general].problem.type);
  if (!chosen) throw new Error(`no problem type is documented for status ${status}`);
  const row = ERROR_KINDS.map((kind) => ERROR_RENDERINGS[kind]).find((rendering) => rendering.problem.type === chosen && rendering.status === status);
  return { type: chosen, title: row?.problem.title ?? detail, status, detail, request_id: EXAMPLE_REQUEST_ID, ...(errors ? { errors } : {}) };
}
