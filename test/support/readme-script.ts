// The README's shell blocks as one bash script, for test/integration/readme.test.ts.
//
// Every ```sh block runs, in order, in one shell (so the variables one block sets are there for
// the next), unless the line before its fence is a directive:
//   <!-- readme-test: skip (why) -->                          not run (it starts the stack itself)
//   <!-- readme-test: background, ready when it prints "X" --> run in the background, as in
//                                                              another terminal, until the test ends;
//                                                              the next block waits for X in its output
// Every curl must answer 2xx unless the line that ends it announces another status: `# -> 401`.
// A new block in the README needs nothing here.

export type BlockMode = 'run' | 'skip' | 'background';

export interface ReadmeBlock {
  /** README line of the first line of code (1-based). */
  line: number;
  code: string;
  mode: BlockMode;
  /** background: the text that says it is ready. */
  readyWhen?: string;
}

export interface CurlSite {
  /** README line where this curl starts. */
  line: number;
  /** The status the README announces for it; null means any 2xx. */
  expected: number | null;
}

const FENCE = /^```(\w*)/;
const DIRECTIVE = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;
const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);
const ANNOUNCED = /#\s*->\s*(\d{3})\s*$/;
const CURL = /(?:^|[\s;&|(`])curl\s/g;

export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (!fence) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    if (end >= lines.length) throw new Error(`README.md line ${start + 1}: a code block is never closed`);
    i = end;
    if (!SHELLS.has(fence[1] ?? '')) continue;
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const directive = before >= 0 ? DIRECTIVE.exec(lines[before]!.trim())?.[1] : undefined;
    const block: ReadmeBlock = { line: start + 2, code: lines.slice(start + 1, end).join('\n'), mode: 'run' };
    if (directive !== undefined) {
      if (directive.startsWith('skip')) block.mode = 'skip';
      else if (directive.startsWith('background')) {
        const ready = /ready when it prints "([^"]+)"/.exec(directive)?.[1];
        if (!ready) throw new Error(`README.md line ${before + 1}: a background block must say when it is ready`);
        block.mode = 'background';
        block.readyWhen = ready;
      } else throw new Error(`README.md line ${before + 1}: unknown readme-test directive "${directive}"`);
    }
    blocks.push(block);
  }
  return blocks;
}

/** The curls of the blocks that run, in the order they run, with the status each announces. */
export function curlSites(blocks: readonly ReadmeBlock[]): CurlSite[] {
  const sites: CurlSite[] = [];
  for (const block of blocks) {
    if (block.mode === 'skip') continue;
    block.code.split('\n').forEach((text, offset) => {
      const line = block.line + offset;
      if (text.trim().startsWith('#')) return;
      for (const _ of text.matchAll(CURL)) sites.push({ line, expected: null });
      const announced = ANNOUNCED.exec(text);
      if (announced) {
        const site = sites.at(-1);
        if (!site || site.line < block.line) throw new Error(`README.md line ${line}: a status is announced with no curl before it in its block`);
        site.expected = Number(announced[1]);
      }
    });
  }
  return sites;
}

export interface ScriptOptions {
  /** Literal replacements in the code (the README's fixed ports for the test stack's). */
  replacements: ReadonlyArray<readonly [string, string]>;
  /** Where each curl's status is appended, one per line. */
  statusLog: string;
  /** Folder for the background blocks' output and process ids. */
  backgroundDir: string;
  /** A file that receives the named variables' values (NAME=value lines) once every block ran. */
  variablesFile: string;
  variables: readonly string[];
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function readmeScript(blocks: readonly ReadmeBlock[], options: ScriptOptions): string {
  const replace = (code: string) => options.replacements.reduce((text, [from, to]) => text.split(from).join(to), code);
  const parts = [
    '# Job control: each background block is its own process group, which the test stops.',
    'set -m -euo pipefail',
    `curl() {`,
    `  local headers; headers=$(mktemp)`,
    `  local code=0`,
    `  command curl -D "$headers" "$@" || code=$?`,
    `  printf '%s\\n' "$(awk '/^HTTP\\//{s=$2} END{print s}' "$headers")" >> ${shellQuote(options.statusLog)}`,
    `  rm -f "$headers"`,
    `  return $code`,
    `}`,
    `__ready() {`,
    `  for _ in $(seq 1 600); do grep -qF "$2" "$1" && return 0; sleep 0.1; done`,
    `  echo "a background block never printed \\"$2\\":" >&2; cat "$1" >&2; return 1`,
    `}`,
    `trap 'echo "README test: exit $? at script line $LINENO: $BASH_COMMAND" >&2' ERR`,
  ];
  blocks.forEach((block, n) => {
    if (block.mode === 'skip') return;
    parts.push(`# README.md line ${block.line}`);
    if (block.mode === 'run') {
      parts.push(replace(block.code));
    } else {
      const log = `${options.backgroundDir}/background-${n}.log`;
      parts.push(`( ${replace(block.code)}\n) > ${shellQuote(log)} 2>&1 &`);
      parts.push(`echo $! >> ${shellQuote(`${options.backgroundDir}/pids`)}`);
      parts.push(`__ready ${shellQuote(log)} ${shellQuote(block.readyWhen!)}`);
    }
  });
  parts.push(`{ ${options.variables.map((name) => `printf '%s=%s\\n' ${name} "$${name}";`).join(' ')} } > ${shellQuote(options.variablesFile)}`);
  return parts.join('\n') + '\n';
}
