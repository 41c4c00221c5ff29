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
