/** The contract's payload schemas: generated from preload/contract.ts, current, and strict, in one sentence. */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { REQUEST_NAMES } from '../preload/contract.ts';
import { MAX_PAYLOAD_DEPTH, nestingDepth, payloadProblem } from './contract-check.ts';
// @ts-expect-error: a plain .mjs script without types
import { generate, SCHEMA_FILE } from '../scripts/contract-schema.mjs';

describe('preload/contract.schema.json', () => {
  it('is what preload/contract.ts gives (else: npm run contract)', () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe((generate as () => string)());
    expect(path.basename(SCHEMA_FILE as string)).toBe('contract.schema.json');
  }, 60_000);

  it('is valid JSON Schema (the service compiles it without checking it against the meta-schema)', () => {
    const schemas = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as { definitions: object; requests: Record<string, object> };
    const ajv = new Ajv({ strict: false });
    expect(ajv.validateSchema({ $id: 'contract', definitions: schemas.definitions }), ajv.errorsText()).toBe(true);
    for (const [name, schema] of Object.entries(schemas.requests)) expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText()}`).toBe(true);
    // And the meta-schema is what catches a broken one.
    expect(ajv.validateSchema({ type: 'no-such-type' })).toBe(false);
  });

  it('has a schema for every request', () => {
    for (const name of REQUEST_NAMES) expect(payloadProblem(name, {}) ?? '', name).not.toMatch(/has no schema/);
  });
});

describe('payloadProblem', () => {
  it('takes what the types allow', () => {
    expect(payloadProblem('bench.set', { paneId: 'p1', open: true })).toBeUndefined();
    expect(payloadProblem('settings.set', { theme: 'dark', agentCommand: ['claude', '--x'] })).toBeUndefined();
    expect(payloadProblem('pane.snapshot', { paneId: 'p1', scrollback: 'all' })).toBeUndefined();
    expect(payloadProblem('layout.set', { layout: { type: 'split', direction: 'row', sizes: [0.5, 0.5], children: [{ type: 'pane', paneId: 'a' }, { type: 'pane', paneId: 'b' }] } })).toBeUndefined();
    expect(payloadProblem('app.hello', {})).toBeUndefined();
  });

  it('refuses a wrong type, naming the field: open "x" is not true', () => {
    expect(payloadProblem('bench.set', { paneId: 'p1', open: 'x' })).toBe('request "bench.set": "open" must be true or false, not "x"; nothing was changed.');
    expect(payloadProblem('pane.resize', { paneId: 'p1', cols: 'wide', rows: 30 })).toBe('request "pane.resize": "cols" must be a number, not "wide"; nothing was changed.');
    expect(payloadProblem('pane.resize', { paneId: 'p1', cols: Infinity, rows: 30 })).toBe('request "pane.resize": "cols" must be a number, not Infinity; nothing was changed.');
    expect(payloadProblem('settings.set', { agentCommand: ['claude', 5] })).toBe('request "settings.set": "agentCommand[1]" must be text, not 5; nothing was changed.');
  });

  it('refuses a missing field, an unknown field, a value outside an enum, and a shape no union allows', () => {
    expect(payloadProblem('bench.set', { paneId: 'p1' })).toBe('request "bench.set" needs "open"; nothing was changed.');
    expect(payloadProblem('bench.set', { paneId: 'p1', open: true, force: 1 })).toBe('request "bench.set" has no field "force" (its fields: paneId, open); nothing was changed.');
    expect(payloadProblem('settings.set', { theme: 'sepia' })).toBe('request "settings.set": "theme" must be "system", "light" or "dark", not "sepia"; nothing was changed.');
    expect(payloadProblem('app.hello', { x: 1 })).toMatch(/^request "app\.hello" has no field "x"/);
    expect(payloadProblem('layout.set', { layout: { type: 'tree' } })).toBe('request "layout.set": "layout" has none of the shapes it may take ({"type":"tree"}); nothing was changed.');
  });

  it('refuses a payload nested past the limit without walking it recursively', () => {
    let deep: unknown = { type: 'pane', paneId: 'a' };
    for (let i = 0; i < 100_000; i++) deep = { type: 'split', direction: 'row', sizes: [1], children: [deep] };
    expect(nestingDepth({ layout: deep })).toBeGreaterThan(MAX_PAYLOAD_DEPTH);
    expect(payloadProblem('layout.set', { layout: deep })).toBe(`request "layout.set" nests more than ${MAX_PAYLOAD_DEPTH} levels deep: send a flatter payload; nothing was changed.`);
    expect(nestingDepth({ a: [1, { b: [] }] })).toBe(4);
  });
});
