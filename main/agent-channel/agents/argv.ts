/**
 * An agent's original argv, read back for resume: which words are options (and their
 * values) and which are a prompt, so a resumed agent keeps its options but neither its
 * old session flags nor the prompt it was first started with. Pure.
 */

export interface FlagSpec {
  /** Options followed by exactly one value (`--model opus`, or `--model=opus`). */
  value: readonly string[];
  /** Options followed by one or more values, up to the next option. */
  variadic?: readonly string[];
  /** Options that may be followed by a value (taken when the next word is not an option). */
  optional?: readonly string[];
  /** Options left out of the result, with their values. */
  drop: readonly string[];
}

/**
 * The options of `args` (argv without the program) as they were, minus `spec.drop` and
 * minus positional words (a prompt). An unknown option is kept alone (its value, if it
 * had one, is taken for a positional word and left out).
 */
export function resumeFlags(args: readonly string[], spec: FlagSpec): string[] {
  const value = new Set(spec.value);
  const variadic = new Set(spec.variadic ?? []);
  const optional = new Set(spec.optional ?? []);
  const drop = new Set(spec.drop);
  const out: string[] = [];
  const isOption = (a: string | undefined) => a !== undefined && a.startsWith('-') && a !== '-';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break; // the rest is positional
    if (!isOption(a)) continue;
    const name = a.split('=')[0];
    const words = [a];
    if (!a.includes('=')) {
      if (value.has(name) && i + 1 < args.length) words.push(args[++i]);
      else if (variadic.has(name)) while (i + 1 < args.length && !isOption(args[i + 1])) words.push(args[++i]);
      else if (optional.has(name) && i + 1 < args.length && !isOption(args[i + 1])) words.push(args[++i]);
    }
    if (!drop.has(name)) out.push(...words);
  }
  return out;
}
