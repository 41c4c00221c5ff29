import { describe, expect, it } from 'vitest';
import { checkArgs, validateDescriptor } from './describe.ts';
import { isRfc3339, outcomeOfCode } from './limits.ts';

const good = () => ({
  protocol: 3,
  kind: 'example.counter',
  title: 'Counter',
  description: 'Keyboard and tool calls share one value.',
  revision: '1',
  tools: [
    { name: 'increment', description: 'Add.', input_schema: { type: 'object', properties: { amount: { type: 'integer' } }, required: ['amount'], additionalProperties: false }, mutates: true },
    { name: 'history', description: 'Read.', input_schema: { type: 'object', additionalProperties: false }, mutates: false },
  ],
  recover_with: 'history',
  state: { series: [{ path: '/recent', newest: 'last' }] },
  future_field: { ignored: true },
});

type D = ReturnType<typeof good> & Record<string, unknown>;
function bad(change: (d: D) => void): string {
  const d = good() as D;
  change(d);
  const r = validateDescriptor(d);
  if (r.ok) throw new Error('expected a rejection');
  return r.error;
}

describe('validateDescriptor (5.3)', () => {
  it('accepts a valid descriptor and ignores unknown fields', () => {
    const r = validateDescriptor(good());
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.catalog.descriptor).not.toHaveProperty('future_field');
      expect(r.catalog.descriptor.recover_with).toBe('history');
      expect([...r.catalog.tools.keys()]).toEqual(['increment', 'history']);
    }
  });
  it('names both versions on a protocol mismatch', () => {
    expect(bad((d) => (d.protocol = 2))).toBe('unsupported Tick protocol version 2; this host speaks Tick protocol 3');
    expect(bad((d) => delete (d as Partial<D>).protocol)).toBe('unsupported Tick protocol version null; this host speaks Tick protocol 3');
  });
  it('needs kind and title nonempty after trimming, and a nonempty revision', () => {
    expect(bad((d) => (d.kind = '  '))).toMatch(/kind/);
    expect(bad((d) => (d.title = '\n'))).toMatch(/title/);
    expect(bad((d) => (d.revision = ''))).toMatch(/revision/);
    expect(bad((d) => ((d as Record<string, unknown>).revision = 1))).toMatch(/revision/);
    expect(validateDescriptor({ ...good(), revision: ' ' }).ok).toBe(true); // only the empty string is refused
  });
  it('needs tool names nonempty and unique', () => {
    expect(bad((d) => (d.tools[0].name = ' '))).toMatch(/empty or missing name/);
    expect(bad((d) => (d.tools[1].name = 'increment'))).toMatch(/appears twice/);
    expect(bad((d) => ((d as Record<string, unknown>).tools = {}))).toMatch(/not an array/);
    expect(bad((d) => ((d.tools[0] as Record<string, unknown>).mutates = 'yes'))).toMatch(/mutates/);
  });
  it('needs each input_schema to be an object and a valid JSON Schema', () => {
    expect(bad((d) => ((d.tools[0] as Record<string, unknown>).input_schema = true))).toMatch(/not an object/);
    expect(bad((d) => ((d.tools[0] as Record<string, unknown>).input_schema = [1]))).toMatch(/not an object/);
    expect(bad((d) => ((d.tools[0] as Record<string, unknown>).input_schema = { type: 'bogus' }))).toMatch(/not a valid JSON Schema/);
    expect(bad((d) => ((d.tools[0] as Record<string, unknown>).input_schema = { type: 'object', required: 'amount' }))).toMatch(/not a valid JSON Schema/);
    const twenty = validateDescriptor({ ...good(), tools: [{ name: 't', input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', prefixItems: [{ type: 'string' }] }, mutates: false }], recover_with: undefined });
    expect(twenty.ok).toBe(true);
    const sameId = { $id: 'https://x/s', type: 'object' };
    expect(validateDescriptor({ ...good(), tools: [{ name: 'a', input_schema: sameId, mutates: false }, { name: 'b', input_schema: sameId, mutates: false }], recover_with: undefined }).ok).toBe(true);
  });
  it('needs recover_with to name a non-mutating catalog tool', () => {
    expect(bad((d) => (d.recover_with = 'missing'))).toMatch(/not in the tool catalog/);
    expect(bad((d) => (d.recover_with = 'increment'))).toMatch(/mutates/);
  });
  it('needs series paths empty or starting with /, and unique', () => {
    expect(validateDescriptor({ ...good(), state: { series: [{ path: '', newest: 'first' }] } }).ok).toBe(true);
    expect(bad((d) => (d.state.series[0].path = 'recent'))).toMatch(/JSON Pointer/);
    expect(bad((d) => d.state.series.push({ path: '/recent', newest: 'last' }))).toMatch(/appears twice/);
  });
  it('refuses a result over 512 KiB encoded', () => {
    expect(bad((d) => (d.description = 'x'.repeat(512 * 1024)))).toMatch(/over the 524288-byte limit/);
  });
  it('refuses anything that is not an object', () => {
    for (const v of [null, [], 'x', 3]) expect(validateDescriptor(v).ok).toBe(false);
  });
});

describe('checkArgs', () => {
  const r = validateDescriptor(good());
  if (!r.ok) throw new Error('bad fixture');
  it('passes good args and explains bad ones', () => {
    expect(checkArgs(r.catalog, 'increment', { amount: 2 })).toBeUndefined();
    expect(checkArgs(r.catalog, 'increment', { amount: 'two' })).toMatch(/\/amount must be integer/);
    expect(checkArgs(r.catalog, 'increment', {})).toMatch(/amount/);
    expect(checkArgs(r.catalog, 'increment', null)).toMatch(/JSON object/);
    expect(checkArgs(r.catalog, 'nope', {})).toBe('the Tick has no tool "nope"; its tools are "increment", "history"');
  });
});

describe('limits helpers', () => {
  it('maps error codes to outcomes as DECISIONS.md says', () => {
    for (const c of [-32700, -32600, -32601, -32602, -32004, -32001]) expect(outcomeOfCode(c)).toBe('not_executed');
    for (const c of [-32000, -32603, -1, 0, 42]) expect(outcomeOfCode(c)).toBe('executed');
  });
  it('checks RFC 3339 timestamps', () => {
    for (const s of ['2026-11-30T00:00:00Z', '2026-11-30t23:59:60.123+05:30', '2024-02-29T00:00:00-00:00']) expect(isRfc3339(s)).toBe(true);
    for (const s of ['2026-11-30', '2026-13-01T00:00:00Z', '2025-02-29T00:00:00Z', '2026-11-30T24:00:00Z', '2026-11-30T00:00:00', 'yesterday', 5]) expect(isRfc3339(s)).toBe(false);
  });
});
