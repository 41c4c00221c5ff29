/**
 * Input typed into a terminal on an agent's behalf: plain text (no control characters:
 * C0, DEL, C1 are refused) followed by explicitly named keys. Nothing else reaches a PTY.
 */
export const NAMED_KEYS: Readonly<Record<string, string>> = {
  enter: '\r',
  tab: '\t',
  backspace: '\x7f',
  escape: '\x1b',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  delete: '\x1b[3~',
  'ctrl-c': '\x03',
  'ctrl-d': '\x04',
  'ctrl-z': '\x1a',
  'ctrl-l': '\x0c',
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function keysToBytes(text: string | undefined, keys: string[] | undefined): { ok: true; data: string } | { ok: false; error: string } {
  if (text !== undefined && typeof text !== 'string') return { ok: false, error: 'text must be a string' };
  if (keys !== undefined && (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string'))) return { ok: false, error: 'keys must be a list of key names' };
  if (!text && (!keys || keys.length === 0)) return { ok: false, error: 'give text to type, keys to press, or both' };
  if (text && CONTROL.test(text)) {
    return { ok: false, error: `text holds a control character; type plain text and press keys by name (${Object.keys(NAMED_KEYS).join(', ')})` };
  }
  let data = text ?? '';
  for (const k of keys ?? []) {
    const seq = NAMED_KEYS[k.toLowerCase()];
    if (seq === undefined) return { ok: false, error: `"${k}" is not a key this host knows; use one of ${Object.keys(NAMED_KEYS).join(', ')}` };
    data += seq;
  }
  return { ok: true, data };
}
