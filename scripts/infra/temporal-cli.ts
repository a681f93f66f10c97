import { ensureGoTool, type GoToolLookup } from './go-tool';

/** The newest Temporal CLI that `go install` can build (later ones cannot be built that way). */
export const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export function ensureTemporalCli(lookup: GoToolLookup = {}): Promise<string> {
  return ensureGoTool(
    {
      binary: 'temporal',
      module: CLI_MODULE,
      purpose: 'the Temporal CLI',
      missing: 'Install the CLI (https://docs.temporal.io/cli) and put it on PATH, or set TEMPORAL_ADDRESS to a running server.',
    },
    { ...lookup, explicit: 'explicit' in lookup ? lookup.explicit : process.env.TEMPORAL_CLI },
  );
}
