/**
 * The keys a device's key bar sends (docs/spec/devices.md, "Typing"): these and only these
 * reach a pane as control bytes from a device; typed text may hold none. Pure.
 */
export const DEVICE_KEYS = {
  Esc: '\u001b',
  Tab: '\t',
  'Ctrl-C': '\u0003',
  Up: '\u001b[A',
  Down: '\u001b[B',
  Right: '\u001b[C',
  Left: '\u001b[D',
  Enter: '\r',
} as const;

export type DeviceKey = keyof typeof DEVICE_KEYS;

/** At most this much text in one send. */
export const MAX_TYPED = 4096;

/** The bytes for what a device sends: text (no control characters) or one key of the bar; a string says what is wrong. */
export function deviceInput(body: { text?: unknown; key?: unknown }): { data: string } | { error: string } {
  if (body.key !== undefined) {
    if (typeof body.key !== 'string' || !Object.hasOwn(DEVICE_KEYS, body.key)) return { error: `"${String(body.key)}" is not a key of the bar: ${Object.keys(DEVICE_KEYS).join(', ')}` };
    return { data: DEVICE_KEYS[body.key as DeviceKey] };
  }
  if (typeof body.text !== 'string' || body.text === '') return { error: 'send text, or a key of the bar' };
  if (body.text.length > MAX_TYPED) return { error: 'that is more than 4096 characters: send it in parts' };
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(body.text)) return { error: 'the text holds a control character (a line break, Esc…): send keys with the key bar' };
  return { data: body.text };
}
