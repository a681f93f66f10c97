/** Where `ops` works and what it says: scripts/ops.ts fills it from the environment; tests run it in-process. */
export interface OpsSettings {
  /** As the owner the migrations use. */
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  out: (line: string) => void;
  err: (line: string) => void;
}
