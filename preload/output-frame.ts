/**
 * `pane.output` as a binary frame: what a window gets when it asks for it (serve's
 * WebSocket at `/ws?output=binary`, a relay's service hello with `binary: true`) instead
 * of the event's JSON, so terminal output is never JSON-escaped (an ESC is six characters
 * in JSON) nor decoded and encoded again on its way (docs/spec/performance.md, "The output path").
 *
 *   byte 0        OUTPUT_FRAME (1)
 *   byte 1        n, the pane id's length (1-64)
 *   bytes 2..     the pane id (ASCII)
 *   4 bytes       the output's length in UTF-16 code units, big-endian (what flow control counts)
 *   the rest      the output, UTF-8
 *
 * The event it stands for is `{ t: 'evt', name: 'pane.output', payload: { paneId, data } }`.
 */
export const OUTPUT_FRAME = 1;

const decoder = new TextDecoder('utf-8');

/** A binary output frame read back: the event's payload, or undefined when it is not one. */
export function decodeOutputFrame(bytes: Uint8Array): { paneId: string; data: string } | undefined {
  if (bytes.length < 6 || bytes[0] !== OUTPUT_FRAME) return undefined;
  const n = bytes[1]!;
  if (n < 1 || bytes.length < 2 + n + 4) return undefined;
  let paneId = '';
  for (let i = 0; i < n; i++) paneId += String.fromCharCode(bytes[2 + i]!);
  const data = decoder.decode(bytes.subarray(2 + n + 4));
  return { paneId, data };
}
