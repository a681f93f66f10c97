import { z } from 'zod';

/**
 * D23: skill codes. Three are known to every tenant; a tenant adds its own. A code is lower-case,
 * 1-40 characters (letters, digits, `_` and `-`).
 */
export const BUILT_IN_SKILLS = ['motorisation', 'large_format', 'high_reach'] as const;
export const SkillCode = z
  .string()
  .regex(/^[a-z0-9_-]{1,40}$/, 'A skill code is lower-case letters, digits, _ or -, 1-40 characters.')
  .meta({ description: 'A skill code: `motorisation`, `large_format`, `high_reach`, or one the tenant uses (lower-case, 1-40 characters).' });

/** D23: a line wider than this (inches) needs `large_format`. */
export const LARGE_FORMAT_WIDTH_INCHES = 96;

/** What a quote line contributes to the skills a job requires (D23's defaults). */
export interface LineForSkills {
  widthInches: number;
  hasMotor: boolean;
}

/** D23: `motorisation` when a line has a motor, `large_format` when one is wider than 96 inches. */
export function skillsFromLines(lines: readonly LineForSkills[]): string[] {
  const skills = new Set<string>();
  for (const line of lines) {
    if (line.hasMotor) skills.add('motorisation');
    if (line.widthInches > LARGE_FORMAT_WIDTH_INCHES) skills.add('large_format');
  }
  return [...skills].sort();
}

/** The skills a job requires: those its lines imply plus those the office adds. */
export function requiredSkills(lines: readonly LineForSkills[], added: readonly string[]): string[] {
  return [...new Set([...skillsFromLines(lines), ...added])].sort();
}

/** The codes a tenant knows: the built-in ones and any its technicians or jobs already carry. */
export function unknownSkills(codes: readonly string[], known: ReadonlySet<string>): number[] {
  return codes.flatMap((code, index) => (BUILT_IN_SKILLS.includes(code as never) || known.has(code) ? [] : [index]));
}
