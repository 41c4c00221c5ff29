/** The living spec must not fall behind the code: its kinds table and refusals are checked against the registry and the validator. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KINDS, LIMITS } from './registry.ts';
import { REFUSALS } from './validate.ts';

const spec = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'spec', 'td-surface-protocol.md'), 'utf8');

describe('docs/spec/td-surface-protocol.md', () => {
  it('lists every kind with the registry\'s shelf, actions and default title', () => {
    for (const k of KINDS) {
      const row = spec.split('\n').find((l) => l.startsWith(`| ${k.kind} |`));
      expect(row, k.kind).toBeDefined();
      const cells = row!.split('|').map((c) => c.trim());
      expect(cells.slice(-4, -1), k.kind).toEqual([k.shelf, k.actions.join(', '), k.defaultTitle]);
    }
  });
  it('quotes the refusals the code gives', () => {
    const plain = spec.replace(/\\`/g, '`');
    for (const sentence of [REFUSALS.missingTd(), REFUSALS.retireNoId(), REFUSALS.tooDeep(), REFUSALS.notObject(), REFUSALS.wrongMajor('1.0'), REFUSALS.relative('report.html'), REFUSALS.unknownKind('hologram'), REFUSALS.badId('a b')]) {
      expect(plain).toContain(sentence);
    }
  });
  it('names the limits', () => {
    expect(spec).toContain(`**${LIMITS.surfacesPerPane}**`);
    expect(spec).toContain('**256 KiB**');
    expect(spec).toContain('**4 KiB**');
    expect(spec).toContain(`**${LIMITS.depth}**`);
  });
});
