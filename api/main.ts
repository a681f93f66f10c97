import { startApiProcess } from './process';

/** The API as deployed (api/process.ts composes it). */
await startApiProcess();
