import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homedir } from 'node:os';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Git-ignored folder for everything the local stack keeps between runs (`.data`), or
 * SHADE_OFFICE_DATA_DIR: a second stack beside the first (a test's `npm start`) keeps its own.
 */
export const dataDir = process.env.SHADE_OFFICE_DATA_DIR || join(projectRoot, '.data');
/** Tools built once per machine (the Temporal CLI, stripe-mock), outside any clone. */
export const toolCacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'shade-office', 'bin');
