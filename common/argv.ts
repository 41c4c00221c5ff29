/**
 * A command line typed by a person, split into argv the way a POSIX shell splits
 * words: blanks separate words; '…' keeps everything literally; "…" keeps blanks
 * and lets a backslash escape " \ $ ` and a newline; outside quotes a backslash
 * keeps the next character. No expansion of any kind ($VAR, ~, globs) happens:
 * the result is run as is, never by a shell.
 */

export type ParsedCommand = { ok: true; argv: string[] } | { ok: false; error: string };

export function parseCommandLine(line: string): ParsedCommand {
  const argv: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const n = line.length;
  while (i < n) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) argv.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { ok: false, error: `The single quote at character ${i + 1} is never closed; add the closing ' and try again.` };
      word += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const d = line[j]!;
        if (d === '"') { closed = true; break; }
        if (d === '\\' && j + 1 < n && '"\\$`\n'.includes(line[j + 1]!)) {
          if (line[j + 1] !== '\n') word += line[j + 1];
          j += 2;
          continue;
        }
        word += d;
        j++;
      }
      if (!closed) return { ok: false, error: `The double quote at character ${i + 1} is never closed; add the closing " and try again.` };
      i = j + 1;
    } else if (c === '\\') {
      if (i + 1 >= n) return { ok: false, error: 'The command line ends with a lone backslash; remove it or escape it as \\\\.' };
      if (line[i + 1] !== '\n') word += line[i + 1];
      i += 2;
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) argv.push(word);
  if (argv.length === 0) return { ok: false, error: 'The command is empty; type the program to run and its arguments, for example: node counter.mjs' };
  return { ok: true, argv };
}
