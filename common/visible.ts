/**
 * Text from agents and programs (titles, option names, pane titles) as a person sees it:
 * C0 control characters and DEL become the visible symbols of Unicode's Control Pictures
 * block (U+2400–U+2421: ␀ … ␟, ␡), and C1 controls, which have no pictures, are dropped.
 * Used for display and accessible names only; what is sent back (an option's name as a
 * target) stays as it came. Pure.
 */
export function visibleText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return '';
  });
}

/**
 * Spinner glyphs agents put before their terminal title while they work (Claude Code's
 * ✳ ✶ ✻ ✽ ✢ ·, and the braille spinners U+2800–U+28FF that Claude Code, Codex and Gemini
 * CLI draw), with the spaces after them.
 */
const LEADING_SPINNER = /^(?:[\u2800-\u28ff\u00b7\u2722\u2733\u2736\u273b\u273d\u2219\u22c5]\s*)+/u;

/**
 * A title as a name (the pane header, the agents list, the Usage view): the spinner glyphs
 * before it dropped, the rest kept as it came ("✳ Fix the cache" is "Fix the cache"). A
 * title that is only a spinner gives ''. Pure.
 */
export function titleName(title: string): string {
  return title.replace(LEADING_SPINNER, '');
}
