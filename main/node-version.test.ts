import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { NODE_MIN, nodeTooOld } from './node-version.ts';

describe('the oldest Node', () => {
  it('is what package.json engines says', () => {
    expect(pkg.engines.node).toBe(`>=${NODE_MIN}`);
  });
  it('says one sentence for an older Node, nothing for this one or newer', () => {
    expect(nodeTooOld('22.15.1')).toBe(`Terminal Delight needs Node ${NODE_MIN} or newer (its search index needs SQLite's FTS5 in node:sqlite); this is Node 22.15.1.`);
    expect(nodeTooOld('20.19.0')).toMatch(/^Terminal Delight needs Node/);
    expect(nodeTooOld('22.16.0')).toBeUndefined();
    expect(nodeTooOld('23.0.0')).toBeUndefined();
    expect(nodeTooOld('24.21.0')).toBeUndefined();
    expect(nodeTooOld()).toBeUndefined();
  });
});
