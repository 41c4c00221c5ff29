/**
 * Text that looks like a secret never enters the search index: API keys and tokens of the
 * well-known shapes (OpenAI/Anthropic `sk-…`, GitHub `ghp_…`/`github_pat_…`, AWS `AKIA…`,
 * Slack `xox?-…`, Google `AIza…`, JWTs, Stripe `sk_live_…`, npm `npm_…`, GitLab `glpat-…`,
 * Hugging Face `hf_…`, PyPI `pypi-…`, age `AGE-SECRET-KEY-1…`, Google OAuth `ya29.…`, a URL's
 * password, a Sentry DSN's key, a Slack webhook's path, a PEM private key on one line as a JSON
 * string has it), a long high-entropy value after key=, token=, secret=, password= (or `: `),
 * any value of a `--password=` flag, and MySQL's `-p<password>`, are replaced by `[redacted]`. A private key's block (`-----BEGIN … PRIVATE KEY-----` to its END line, RSA,
 * EC, OPENSSH, ENCRYPTED, PGP's `PRIVATE KEY BLOCK`; a PuTTY key file) is redacted whole, in a
 * text of many lines (`redact`) and across a pane's output lines (`KeyBlocks`): at most
 * KEY_LINES lines of it, so a BEGIN without an END does not swallow what follows. Pure.
 */

export const REDACTED = '[redacted]';

/** A private key's markers: PEM's and PGP's (five dashes) and SSH2's (four, spaced), and a PuTTY key file's first and last lines. */
const PEM_BEGIN = String.raw`-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}`;
const PEM_END = String.raw`-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}`;
const PUTTY_BEGIN = String.raw`PuTTY-User-Key-File-\d+:`;
const PUTTY_END = String.raw`Private-MAC: *[0-9a-f]+`;

const SHAPES: RegExp[] = [
  /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\bpypi-[A-Za-z0-9_-]{50,}/g,
  /\bAGE-SECRET-KEY-1[0-9A-Z]{50,}/g,
  /\bya29\.[0-9A-Za-z_-]{20,}/g,
  // A key on one line: to its END on the line (a JSON string's `\n`s), or the line's end (a block: KeyBlocks).
  new RegExp(`(?:${PEM_BEGIN}).*?(?:${PEM_END}|$)`, 'g'),
  new RegExp(`${PUTTY_BEGIN}.*?(?:${PUTTY_END}|$)`, 'g'),
];

/** A private key's block begins (a PEM or PGP armour, a PuTTY key file) and ends. */
const KEY_BEGIN = new RegExp(`${PEM_BEGIN}|${PUTTY_BEGIN}`, 'g');
const KEY_END = new RegExp(`${PEM_END}|${PUTTY_END}`, 'g');
/** A key's block is redacted for at most this many lines (from its BEGIN line): a BEGIN without an END stops there (a 4096-bit RSA key is 51 lines, a PGP key's armour a few hundred characters more than its key). */
export const KEY_LINES = 200;

/** `token=…`, `api_key: "…"`, `Authorization: Bearer …`: the value, when it is long and varied. */
const ASSIGNED = /\b([A-Za-z_-]*(?:key|token|secret|passw(?:or)?d|pwd|auth(?:orization)?|bearer|credential)s?)(["']?\s*[:=]\s*["']?(?:Bearer\s+)?)([^\s"',;]{16,})/gi;

/** Bits per character of a string's characters (Shannon). */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Whether a value after `key=` looks like a secret rather than a word: long enough, varied enough, not all letters. */
function secretValue(v: string): boolean {
  if (/^[a-z_-]+$/i.test(v)) return false;
  if (/^[0-9a-f]+$/i.test(v)) return v.length >= 24;
  return entropy(v) >= 3.5;
}

/**
 * A line that leaves a key's block open: one whose last BEGIN has no END after it on the line
 * (the block's lines that follow are the key).
 */
export function opensKey(line: string): boolean {
  if (!line.includes('PRIVATE KEY') && !line.includes('PuTTY-User-Key-File-')) return false;
  let begin = -1;
  for (const m of line.matchAll(KEY_BEGIN)) begin = m.index;
  if (begin < 0) return false;
  KEY_END.lastIndex = begin;
  const ended = KEY_END.test(line);
  KEY_END.lastIndex = 0;
  return !ended;
}

/** Where a key's END ends on a line (-1: not on it). */
function keyEnd(line: string): number {
  if (!line.includes('PRIVATE KEY') && !line.includes('Private-MAC:')) return -1;
  KEY_END.lastIndex = 0;
  const m = KEY_END.exec(line);
  KEY_END.lastIndex = 0;
  return m ? m.index + m[0].length : -1;
}

/**
 * A pane's output lines, redacted one at a time in the order they printed, each pane's key
 * block whole: from its BEGIN line (that line from BEGIN on) to its END line (up to END's
 * end), each line between `[redacted]`; at most KEY_LINES lines from the BEGIN line (by the
 * pane's line numbers, which count the lines not read too), after which lines are redacted
 * one by one again. Only panes inside a block are kept.
 */
export class KeyBlocks {
  /** The panes inside a key's block: the line it began on. */
  private readonly open = new Map<string, number>();

  /** A pane's output line `n`, redacted. */
  line(pane: string, n: number, text: string): string {
    // (Most of the time no pane is inside a block: no look-up a line.)
    const began = this.open.size > 0 ? this.open.get(pane) : undefined;
    if (began !== undefined) {
      if (n - began < KEY_LINES && n >= began) {
        const end = keyEnd(text);
        if (end < 0) return REDACTED;
        this.open.delete(pane);
        return REDACTED + redact(text.slice(end));
      }
      this.open.delete(pane);
    }
    // (The cheap check first, as redact's: most lines hold no secret's start.)
    if (!mayHold(text)) return text;
    if (opensKey(text)) this.open.set(pane, n);
    return redactLine(text);
  }

  /** The pane's command ended (its shell said so): what it printed is over, a block left open with it. */
  end(pane: string): void {
    this.open.delete(pane);
  }

  /** Whether a pane is inside a key's block. */
  inside(pane: string): boolean {
    return this.open.has(pane);
  }
}

/** The text with anything that looks like a secret replaced by [redacted]; a text of many lines with a key's block in it, the block whole (as KeyBlocks does a pane's lines). */
export function redact(text: string): string {
  if (!mayHold(text)) return text;
  if (text.includes('\n') && (text.includes('PRIVATE KEY') || text.includes('PuTTY-User-Key-File-'))) {
    const blocks = new KeyBlocks();
    return text.split('\n').map((line, i) => blocks.line('', i, line)).join('\n');
  }
  return redactLine(text);
}

/** One line (or a text without a key's block) redacted (exported for the tests: redact's and KeyBlocks' first look, mayHold, must say yes to every line this changes). */
export function redactLine(text: string): string {
  // (Its callers looked first, with mayHold: most lines hold none of the shapes' starts, no
  // secret's name before a `:` or `=` and no URL's password, and one pattern says so in one look.)
  let out = text;
  if (SHAPE_START.test(out)) for (const re of SHAPES) out = out.replace(re, REDACTED);
  if (URL_SECRET.test(out)) {
    out = out.replace(URL_KEY, `$1${REDACTED}`).replace(URL_PASSWORD, `$1${REDACTED}@`).replace(SLACK_HOOK, `$1${REDACTED}`);
  }
  if (NAMED_ASSIGNED.test(out)) {
    out = out.replace(PASSWORD_FLAG, `$1${REDACTED}`);
    // (A value redacted already, as a URL's password after `x-access-token:`, is left: the host and path after it stay.)
    out = out.replace(ASSIGNED, (whole, name: string, sep: string, value: string) => (!value.startsWith(REDACTED) && secretValue(value) ? `${name}${sep}${REDACTED}` : whole));
  }
  if (P_OPTION.test(out) && MYSQL.test(out)) out = out.replace(MYSQL_COMMAND, (command: string) => command.replace(MYSQL_P, `$1${REDACTED}`));
  return out;
}

const SHAPE_START = /sk-|gh[pousr]_|github_pat_|AKIA|ASIA|xox[abposr]-|AIza|eyJ|k_live_|k_test_|npm_|glpat-|hf_|pypi-|AGE-SECRET-KEY-|ya29\.|PRIVATE KEY|PuTTY-User-Key-File-/;
/** A name then `=` or `:` (what ASSIGNED needs, without its costly start: a word's letters before the name tried at each boundary). */
const NAMED_ASSIGNED = /(?:key|token|secret|passw(?:or)?d|pwd|auth(?:orization)?|bearer|credential)s?["']?\s*[:=]/i;
/**
 * A URL holding a secret: a user and password (`postgres://app:hunter2@db/x`: the password
 * goes, the user and host stay), a user that is a key of 32 hex digits (a Sentry DSN,
 * `https://<key>@o1.ingest.sentry.io/2`: the key goes), a Slack webhook
 * (`https://hooks.slack.com/services/T…/B…/…`: its path goes).
 */
const URL_SECRET = /:\/\/(?:[^\s/@:]+:[^\s/@]+@|[0-9a-f]{32}[:@]|hooks\.slack\.com\/)/;
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]+:)[^\s/@]+@/gi;
const URL_KEY = /(\b[A-Za-z][A-Za-z0-9+.-]*:\/\/)[0-9a-f]{32}(?=[:@])/g;
const SLACK_HOOK = /(:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{20,}/g;
/** A `--password=` flag's value, whatever its length (not a `$VARIABLE`'s name). */
const PASSWORD_FLAG = /((?:^|[\s"'])--?passw(?:or)?d=)(?!\$)(?:"[^"]*"|'[^']*'|[^\s"']+)/gi;
/**
 * A MySQL (MariaDB) client's command, to the end of the line or of the command (`|`, `;`,
 * `&`), and its `-p<password>` (`-p` alone asks for it: kept). Looked for only on a line with
 * an option `-p` and more: the first look starts there (at the program's name instead, each
 * `q` and `b` of a line looked behind, it cost 4 to 6 times as much).
 */
const P_OPTION = /\s-p\S/;
const MYSQL = /\b(?:mysql|mariadb)/i;
/**
 * The client as a word of its own (after the line's start, a space, `;`, `&`, `|`, `(`, a
 * quote or `=`: `sh -c "mysql …"`), or
 * a path to it in a `bin/` folder (`/usr/bin/mysql`), with a space after it: not a word of a
 * path or an argument (`/var/lib/mysql`, `mysql-data`), whose `-print` or `-prune` is no password.
 */
const MYSQL_COMMAND = /(?<=^|[\s;&|("'`=])(?:\S*bin\/)?(?:mysql|mariadb)(?:[-_]?(?:dump|pump|admin|import|slap|check|show|binlog|upgrade))?(?=\s)[^|;&]*/gi;
const MYSQL_P = /(\s-p)(?!\$)(?:'[^']*'|"[^"]*"|[^\s"']+)/g;
/** A name's letters either case, as explicit classes (`[kK][eE][yY]`): the same as `/key/i` for these ASCII letters. */
const anyCase = (re: string): string => re.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
/**
 * Whether a text may hold a secret: exactly what redactLine's looks ask (SHAPE_START,
 * URL_SECRET, NAMED_ASSIGNED, P_OPTION), in one pattern that starts at a character few places
 * hold: a shape's `-` or `_` looked behind (`sk-`, `ghp_`), its `A`, `J` or `P` looked around
 * (`AKIA`, `eyJ`, `PRIVATE KEY`), a name's `:` or `=` looked behind (`token =`), a URL's
 * `://` looked ahead (a password, a Sentry key, a Slack webhook), `ya29.`'s `.` looked behind,
 * an option `-p…`'s `-` (MySQL's password). The earlier look, the starts and names blind to
 * case at every character, cost three times as much and said yes to any line with a name in
 * it (4% of the bench's lines: `token` in prose), each then looked at three times more.
 */
const ANY_START = new RegExp(
  [
    String.raw`-(?:(?<=sk-|xox[abposr]-|glpat-|pypi-|AGE-SECRET-KEY-)|(?<=\s-)(?=p\S))`,
    String.raw`_(?<=gh[pousr]_|github_pat_|k_live_|k_test_|npm_|hf_)`,
    String.raw`A(?=KIA|SIA|Iza)`,
    String.raw`J(?<=eyJ)`,
    String.raw`P(?=RIVATE KEY|uTTY-User-Key-File-)`,
    String.raw`[:=](?<=(?:${anyCase(String.raw`key|token|secret|passw(?:or)?d|pwd|auth(?:orization)?|bearer|credential`)})[sS]?["']?\s*[:=])`,
    String.raw`:(?=\/\/(?:[^\s/@:]+:[^\s/@]+@|[0-9a-f]{32}[:@]|hooks\.slack\.com\/))`,
    String.raw`\.(?<=ya29\.)`,
  ].join('|'),
);

/** Whether a text may hold a secret (most lines say no in one look). */
export const mayHold = (text: string): boolean => ANY_START.test(text);
