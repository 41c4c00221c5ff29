/**
 * Unified diffs for the change card: one file's `diff` text into hunks with line
 * numbers. Hunks are numbered per file from 1, in the order their `@@` headers
 * appear (the same rule the core uses for `path#hunk-N` targets). Pure, no DOM.
 */

export type DiffLineType = 'context' | 'add' | 'del' | 'note';

export interface DiffLine {
  type: DiffLineType;
  /** The text without its leading marker (' ', '+', '-', '\'). */
  text: string;
  /** Line number in the old file (context and del lines). */
  oldNo?: number;
  /** Line number in the new file (context and add lines). */
  newNo?: number;
}

export interface Hunk {
  /** 1, 2, 3… within the file. */
  index: number;
  /** The `@@ -a,b +c,d @@ section` line as written. */
  header: string;
  /** Text after the second `@@` (often the enclosing function), trimmed. */
  section: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
  added: number;
  removed: number;
}

export interface ParsedFileDiff {
  /** Lines before the first hunk (diff --git, index, ---, +++), kept for display. */
  preamble: string[];
  hunks: Hunk[];
  added: number;
  removed: number;
  /** Whether the text had any hunk at all (a binary or rename-only diff has none). */
  hasHunks: boolean;
}

const HUNK_RE = /^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@+ ?(.*)$/;

/** Parse one file's unified diff. Never throws: lines it cannot place are kept as context. */
export function parseFileDiff(diff: string): ParsedFileDiff {
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const preamble: string[] = [];
  const hunks: Hunk[] = [];
  let cur: Hunk | undefined;
  let oldNo = 0;
  let newNo = 0;
  for (const line of lines) {
    const m = HUNK_RE.exec(line);
    if (m) {
      cur = {
        index: hunks.length + 1,
        header: line,
        section: (m[5] ?? '').trim(),
        oldStart: Number(m[1]),
        oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newLines: m[4] === undefined ? 1 : Number(m[4]),
        lines: [],
        added: 0,
        removed: 0,
      };
      hunks.push(cur);
      oldNo = cur.oldStart;
      newNo = cur.newStart;
      continue;
    }
    if (!cur) {
      preamble.push(line);
      continue;
    }
    const mark = line[0];
    const text = line.slice(1);
    if (mark === '+') {
      cur.lines.push({ type: 'add', text, newNo: newNo++ });
      cur.added++;
    } else if (mark === '-') {
      cur.lines.push({ type: 'del', text, oldNo: oldNo++ });
      cur.removed++;
    } else if (mark === '\\') {
      cur.lines.push({ type: 'note', text: line.slice(1).trim() });
    } else {
      // ' ' context, or an empty line some tools write for an empty context line.
      cur.lines.push({ type: 'context', text: mark === ' ' ? text : line, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return {
    preamble,
    hunks,
    added: hunks.reduce((n, h) => n + h.added, 0),
    removed: hunks.reduce((n, h) => n + h.removed, 0),
    hasHunks: hunks.length > 0,
  };
}

/** The action target naming one hunk: `path#hunk-N`. */
export function hunkTarget(path: string, index: number): string {
  return `${path}#hunk-${index}`;
}

/** The inverse of hunkTarget, or undefined when the target names no hunk. */
export function parseHunkTarget(target: string): { path: string; index: number } | undefined {
  const m = /^(.*)#hunk-([1-9]\d*)$/.exec(target);
  return m ? { path: m[1]!, index: Number(m[2]) } : undefined;
}

/** The highlight.js language for a path, by extension (undefined: plain text). */
export function languageForPath(path: string): string | undefined {
  const base = path.split('/').pop() ?? path;
  const lower = base.toLowerCase();
  if (lower === 'dockerfile') return 'dockerfile';
  if (lower === 'makefile') return 'makefile';
  const ext = lower.includes('.') ? lower.slice(lower.lastIndexOf('.') + 1) : '';
  return EXT_LANG[ext];
}

const EXT_LANG: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  json: 'json', py: 'python', rb: 'ruby', rs: 'rust', go: 'go', java: 'java',
  kt: 'kotlin', swift: 'swift', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp',
  cs: 'csharp', php: 'php', sh: 'bash', bash: 'bash', zsh: 'bash', md: 'markdown',
  css: 'css', scss: 'scss', less: 'less', html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml',
  yml: 'yaml', yaml: 'yaml', toml: 'ini', ini: 'ini', sql: 'sql', lua: 'lua',
  pl: 'perl', r: 'r', scala: 'scala', dart: 'dart', ex: 'elixir', exs: 'elixir',
  hs: 'haskell', ml: 'ocaml', vue: 'xml', diff: 'diff', patch: 'diff',
};
