/**
 * D20's password rules, one home for every route that sets a password (accepting an
 * invitation, confirming a reset, changing one's own). The list of common passwords is given by
 * the caller (db/passwords.ts loads it from its maintained package), so this stays pure.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

export const PASSWORD_TOO_SHORT = `Must be at least ${PASSWORD_MIN_LENGTH} characters.`;
export const PASSWORD_TOO_LONG = `Must be at most ${PASSWORD_MAX_LENGTH} characters.`;
export const PASSWORD_COMMON = 'Is a commonly used password, or one made from one in a way guessers try first; choose another.';

export interface PasswordContext {
  /** The user's email: a password containing its local part is refused. */
  email: string;
  /**
   * Where a lower-case string stands on the list of common passwords, ranked by how often it was
   * seen (0: the most common), or undefined when it is not on the list.
   */
  commonRank: (lowerCase: string) => number | undefined;
}

/** Lengths count characters as people type them (code points), not UTF-16 units. */
const lengthOf = (password: string) => [...password].length;

/** Why a password is refused (one sentence), or undefined when D20 accepts it. */
export function passwordComplaint(password: string, context: PasswordContext): string | undefined {
  const length = lengthOf(password);
  if (length < PASSWORD_MIN_LENGTH) return PASSWORD_TOO_SHORT;
  if (length > PASSWORD_MAX_LENGTH) return PASSWORD_TOO_LONG;
  if (isGuessable(password, context.commonRank)) return PASSWORD_COMMON;
  const localPart = emailLocalPart(context.email);
  if (localPart.length > 0 && password.toLowerCase().includes(localPart)) return "Must not contain your email address's name.";
  return undefined;
}

/** The part of an address before its last `@`, lower-cased (`Ana.Ng+x@a.test` gives `ana.ng+x`). */
export function emailLocalPart(email: string): string {
  const at = email.lastIndexOf('@');
  return (at < 0 ? email : email.slice(0, at)).trim().toLowerCase();
}

/**
 * The base words a dictionary attack's rules start from: the most common passwords of the list.
 * Ten thousand words, each tried with its usual manglings (case, l33t, doubled, two joined) and a
 * few digits or symbols around it, is of the order of 10^8 guesses: the first a guesser spends.
 */
export const COMMON_BASE_WORDS = 10_000;
/** The digits and symbols a guesser's rules add around a base word (`2024!`, `123456`). */
export const GUESSED_AFFIX_LENGTH = 6;

/**
 * Whether a guesser tries this password first (D20), at any length: it is on the list of common
 * passwords; or it is a pattern (a repeated unit such as `abcabcabcabc`, a run of the alphabet, the
 * digits or a keyboard row such as `123456789012` or `qwertyuiopas`); or it is one of the most
 * common words, capitalised or in l33t, doubled or two of them joined, with digits or symbols
 * before or after that are few (at most six), themselves a pattern or a common password, or such
 * with one symbol repeated (`password123456`, `iloveyou1234`, `P@ssw0rd2024!`, `Summer2024!!!`,
 * `monkeymonkey99`, `dragon123456789`).
 */
export function isGuessable(password: string, commonRank: PasswordContext['commonRank']): boolean {
  const lower = password.toLowerCase();
  if (commonRank(lower) !== undefined || isPattern(lower)) return true;
  const chars = [...lower];
  const isAffix = (c: string) => !/\p{L}/u.test(c);
  let leading = 0;
  while (leading < chars.length && isAffix(chars[leading]!)) leading++;
  let trailing = 0;
  while (trailing < chars.length - leading && isAffix(chars[chars.length - 1 - trailing]!)) trailing++;
  // Where the base word may start and end: after up to six affix characters, or after all of them.
  const cuts = (most: number) => [...new Set([...Array.from({ length: Math.min(most, GUESSED_AFFIX_LENGTH) + 1 }, (_, i) => i), most])];
  const affixIsGuessed = (affix: string): boolean => {
    if (affix.length <= GUESSED_AFFIX_LENGTH || isPattern(affix) || commonRank(affix) !== undefined) return true;
    // A year or a short number with one symbol repeated after or before it (`2024!!!`, `***123456`).
    const bare = affix.replace(/^([^\p{L}\p{N}])\1*|([^\p{L}\p{N}])\2*$/gu, '');
    return bare.length < affix.length && affixIsGuessed(bare);
  };
  const isBaseWord = (word: string) => word.length >= 3 && (commonRank(word) ?? Infinity) < COMMON_BASE_WORDS;
  for (const before of cuts(leading)) {
    for (const after of cuts(trailing)) {
      const core = chars.slice(before, chars.length - after).join('');
      if (core.length === 0) continue;
      const affix = chars.slice(0, before).join('') + chars.slice(chars.length - after).join('');
      if (!affixIsGuessed(affix)) continue;
      for (const word of unLeet(core)) {
        if (isBaseWord(word) || isRepeatOf(word, isBaseWord) || isTwoOf(word, isBaseWord)) return true;
      }
    }
  }
  return false;
}

/** The l33t a guesser undoes (`p@ssw0rd`): the word as typed and its readings (`1` as i and as l). */
const LEET: Record<string, string> = { '4': 'a', '@': 'a', '8': 'b', '(': 'c', '3': 'e', '6': 'g', '9': 'g', '!': 'i', '|': 'i', '0': 'o', '$': 's', '5': 's', '7': 't', '+': 't', '2': 'z' };
function unLeet(word: string): string[] {
  const read = (one: string) => [...word].map((c) => (c === '1' ? one : (LEET[c] ?? c))).join('');
  return [...new Set([word, read('i'), read('l')])];
}

/** `word` is one unit written twice or more (`monkeymonkey`), the unit passing `test`. */
function isRepeatOf(word: string, test: (unit: string) => boolean): boolean {
  for (let size = 1; size <= word.length / 2; size++) {
    if (word.length % size === 0 && word === word.slice(0, size).repeat(word.length / size) && test(word.slice(0, size))) return true;
  }
  return false;
}

/** `word` is two words joined (`iloveyoupassword`), each passing `test`. */
function isTwoOf(word: string, test: (part: string) => boolean): boolean {
  for (let cut = 3; cut <= word.length - 3; cut++) if (test(word.slice(0, cut)) && test(word.slice(cut))) return true;
  return false;
}

/** Walks a guesser's pattern rules try: the alphabet, the digits, and keyboard rows, each both ways and wrapping. */
const WALKS = ['abcdefghijklmnopqrstuvwxyz', '1234567890', '0123456789', 'qwertyuiopasdfghjklzxcvbnm', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p', 'qazwsxedcrfvtgbyhnujmikolp'];
const WALK_TEXT = WALKS.flatMap((walk) => [walk, [...walk].reverse().join('')]).map((walk) => walk.repeat(Math.ceil(PASSWORD_MAX_LENGTH / walk.length) + 1));

/**
 * A repeated unit of up to half its length (`aaaaaaaaaaaa`, `abcabcabcab`, `121212121212`), or a
 * stretch of one walk, wrapping round as often as it likes (`123456789012`, `zyxwvutsrqpo`).
 */
export function isPattern(text: string): boolean {
  if (text.length === 0) return true;
  for (let size = 1; size <= text.length / 2; size++) {
    const unit = text.slice(0, size);
    if (unit.repeat(Math.ceil(text.length / size)).startsWith(text)) return true;
  }
  return WALK_TEXT.some((walk) => walk.includes(text));
}
