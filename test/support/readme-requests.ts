import { readmeBlocks } from './readme-script';

/**
 * The requests the README's shell blocks make with curl, read the way bash would read them
 * (continuation lines, single and double quotes, `$VAR` and variables assigned earlier), so that a
 * test can type-check each against client types without a hand copy. Only what a typed client
 * needs is kept: method, path, query and JSON body.
 */
export interface ReadmeRequest {
  /** README line where the curl starts. */
  line: number;
  /** Scheme, host and port: the API's (`http://127.0.0.1:3000`), or a tool beside it (the mail catcher). */
  origin: string;
  method: string;
  /** The URL's path as written, `$VAR` left as the variable's name. */
  path: string;
  query: Record<string, string>;
  body?: unknown;
  /** The status the README announces (`# -> 422`), null for any 2xx. */
  expected: number | null;
}

type Token = { word: string; line: number } | { op: string; line: number; comment?: string };

/** Words and command separators of shell code; `$NAME` in a word is the variable's value if assigned, else its name. */
function tokenize(code: string, firstLine: number, variables: Map<string, string>): Token[] {
  const tokens: Token[] = [];
  let line = firstLine;
  let i = 0;
  let word: string | null = null;
  let wordLine = line;
  const flush = () => {
    if (word !== null) tokens.push({ word, line: wordLine });
    word = null;
  };
  const add = (text: string) => {
    if (word === null) {
      word = '';
      wordLine = line;
    }
    word += text;
  };
  const variable = (): string => {
    const match = /^\$(?:\{(\w+)\}|(\w+))/.exec(code.slice(i));
    if (!match) {
      i += 1;
      return '$';
    }
    i += match[0].length;
    const name = (match[1] ?? match[2])!;
    return variables.get(name) ?? name;
  };
  while (i < code.length) {
    const c = code[i]!;
    if (c === '\\' && code[i + 1] === '\n') {
      i += 2;
      line += 1;
    } else if (c === '\n' || c === ';' || c === '|' || c === ')' || c === '&') {
      flush();
      tokens.push({ op: c, line });
      if (c === '\n') line += 1;
      i += 1;
    } else if (c === ' ' || c === '\t') {
      flush();
      i += 1;
    } else if (c === '#' && word === null) {
      const end = code.indexOf('\n', i);
      tokens.push({ op: '#', line, comment: code.slice(i, end === -1 ? undefined : end) });
      i = end === -1 ? code.length : end;
    } else if (c === '$' && code[i + 1] === '(') {
      flush();
      tokens.push({ op: '$(', line });
      i += 2;
    } else if (c === "'") {
      const end = code.indexOf("'", i + 1);
      const text = code.slice(i + 1, end);
      add(text);
      line += text.split('\n').length - 1;
      i = end + 1;
    } else if (c === '"') {
      i += 1;
      let text = '';
      while (i < code.length && code[i] !== '"') {
        if (code[i] === '\\' && '"\\$`'.includes(code[i + 1]!)) {
          text += code[i + 1];
          i += 2;
        } else if (code[i] === '$') text += variable();
        else {
          if (code[i] === '\n') line += 1;
          text += code[i];
          i += 1;
        }
      }
      i += 1;
      add(text);
    } else if (c === '$') add(variable());
    else {
      add(c);
      i += 1;
    }
  }
  flush();
  return tokens;
}

const OPTIONS_WITH_VALUE = new Set(['-H', '--header', '-o', '--output', '-w', '--write-out', '-u', '--user', '-A', '-b', '-c']);

export function readmeRequests(markdown: string): ReadmeRequest[] {
  const variables = new Map<string, string>();
  const requests: ReadmeRequest[] = [];
  for (const block of readmeBlocks(markdown)) {
    if (block.mode === 'skip') continue;
    // Twice: the first pass learns the block's own assignments (a body kept in a variable), the second uses them.
    for (const token of tokenize(block.code, block.line, variables)) {
      const assignment = 'word' in token ? /^(\w+)=(.+)$/s.exec(token.word) : null;
      if (assignment) variables.set(assignment[1]!, assignment[2]!);
    }
    const tokens = tokenize(block.code, block.line, variables);
    let command: Extract<Token, { word: string }>[] = [];
    const end = (comment?: string) => {
      const [first, ...args] = command;
      command = [];
      if (!first) return;
      if (first.word !== 'curl') return;
      let method: string | undefined;
      let data: string | undefined;
      let url: string | undefined;
      for (let k = 0; k < args.length; k += 1) {
        const arg = args[k]!.word;
        if (arg === '-X' || arg === '--request') method = args[++k]?.word;
        else if (arg === '-d' || arg === '--data' || arg === '--data-raw') data = args[++k]?.word;
        else if (OPTIONS_WITH_VALUE.has(arg)) k += 1;
        else if (/^https?:\/\//.test(arg)) url = arg;
      }
      if (!url) throw new Error(`README.md line ${first.line}: a curl without a URL`);
      const parsed = new URL(url);
      requests.push({
        line: first.line,
        origin: parsed.origin,
        method: (method ?? (data === undefined ? 'GET' : 'POST')).toUpperCase(),
        path: decodeURIComponent(parsed.pathname),
        query: Object.fromEntries(parsed.searchParams),
        ...(data === undefined ? {} : { body: JSON.parse(data) as unknown }),
        expected: comment ? Number(/->\s*(\d{3})/.exec(comment)?.[1] ?? Number.NaN) || null : null,
      });
    };
    let pending: string | undefined;
    for (const token of tokens) {
      if ('word' in token) {
        command.push(token);
        continue;
      }
      if (token.op === '#') pending = token.comment;
      if (token.op === '$(') {
        // `X=$(curl ...)`: the assignment's value is not known; the curl inside is a command of its own.
        command = [];
        continue;
      }
      if (token.op === '\n' || token.op === ';' || token.op === '|' || token.op === ')' || token.op === '&' || token.op === '#') {
        if (token.op === '#') continue;
        const lastCurl = requests.length;
        end(pending);
        if (requests.length === lastCurl && pending && /->\s*\d{3}/.test(pending)) {
          // A comment after the command that ended earlier in the same line (`... | node -p ... # -> 201`).
          const previous = requests.at(-1);
          if (previous && previous.line === token.line) previous.expected = Number(/->\s*(\d{3})/.exec(pending)![1]);
        }
        pending = undefined;
      }
    }
    end(pending);
  }
  return requests;
}
