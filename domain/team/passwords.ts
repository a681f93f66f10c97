/**
 * D20's password rules, one home for every route that sets a password (accepting an
 * invitation, confirming a reset, changing one's own). The list of common passwords is given by
 * the caller (db/passwords.ts loads it from its maintained package), so this stays pure.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

export const PASSWORD_TOO_SHORT = `Must be at least ${PASSWORD_MIN_LENGTH} characters.`;
export const PASSWORD_TOO_LONG = `Must be at most ${PASSWORD_MAX_LENGTH} characters.`;

export interface PasswordContext {
  /** The user's email: a password containing its local part is refused. */
  email: string;
  /** Whether a password is on the list of common passwords (compared without regard to case). */
  isCommon: (password: string) => boolean;
}

/** Lengths count characters as people type them (code points), not UTF-16 units. */
const lengthOf = (password: string) => [...password].length;

/** Why a password is refused (one sentence), or undefined when D20 accepts it. */
export function passwordComplaint(password: string, context: PasswordContext): string | undefined {
  const length = lengthOf(password);
  if (length < PASSWORD_MIN_LENGTH) return PASSWORD_TOO_SHORT;
  if (length > PASSWORD_MAX_LENGTH) return PASSWORD_TOO_LONG;
  if (context.isCommon(password)) return 'Is a commonly used password; choose another.';
  const localPart = emailLocalPart(context.email);
  if (localPart.length > 0 && password.toLowerCase().includes(localPart)) return "Must not contain your email address's name.";
  return undefined;
}

/** The part of an address before its last `@`, lower-cased (`Ana.Ng+x@a.test` gives `ana.ng+x`). */
export function emailLocalPart(email: string): string {
  const at = email.lastIndexOf('@');
  return (at < 0 ? email : email.slice(0, at)).trim().toLowerCase();
}
