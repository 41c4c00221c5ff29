/**
 * The import graph, read by dpdm from every entry point (type imports included): no
 * circles anywhere, and the protocol's kinds, shelves, actions and limits reach both the
 * core's registry and the renderer's bench from one module beside the contract.
 */
import path from 'node:path';
import { parseCircular, parseDependencyTree, type DependencyTree } from 'dpdm';
import { beforeAll, describe, expect, it } from 'vitest';
import { KIND_RULES, LIMITS, SHELVES } from './tdsp.ts';
import { KINDS, catalogue } from '../main/surfaces/registry.ts';
import { COMMENT_LIMIT } from '../renderer/workbench/acting.ts';
import { NOTE_LIMIT_BYTES } from '../renderer/viewers/notes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const ENTRIES = ['renderer/main.tsx', 'preload/index.ts', 'main/app.ts', 'main/service/main.ts', 'main/serve/main.ts', 'main/electron/main.ts', 'main/cli/main.ts'];

let tree: DependencyTree;
beforeAll(async () => {
  tree = await parseDependencyTree(ENTRIES, { context: ROOT, transform: false, skipDynamicImports: false, tsconfig: path.join(ROOT, 'tsconfig.json') });
}, 60_000);

/** Every file the given file imports, directly or not. */
function reach(file: string, seen = new Set<string>()): Set<string> {
  for (const d of tree[file] ?? []) {
    if (d.id && !d.id.includes('node_modules') && !seen.has(d.id)) {
      seen.add(d.id);
      reach(d.id, seen);
    }
  }
  return seen;
}

describe('imports', () => {
  it('read the whole app from its entry points', () => {
    for (const f of ['renderer/workbench/Bench.tsx', 'renderer/agents/notify.ts', 'main/surfaces/registry.ts', 'main/core.ts']) expect(Object.keys(tree)).toContain(f);
  });

  it('form no circles', () => {
    const circles = parseCircular(tree, true).map((c) => c.join(' → '));
    expect(circles).toEqual([]);
  });

  it('bring kinds, shelves, actions and limits to the core and the renderer from preload/tdsp.ts', () => {
    expect(reach('main/surfaces/registry.ts')).toContain('preload/tdsp.ts');
    expect(reach('renderer/workbench/Bench.tsx')).toContain('preload/tdsp.ts');
    expect(KINDS.map(({ schema: _schema, ...k }) => k)).toEqual(KIND_RULES);
    expect(catalogue().map((k) => k.actions)).toEqual(KIND_RULES.map((k) => k.actions));
    expect(new Set(KIND_RULES.map((k) => k.shelf))).toEqual(new Set(SHELVES));
    expect([COMMENT_LIMIT, NOTE_LIMIT_BYTES]).toEqual([LIMITS.commentBytes, LIMITS.commentBytes]);
  });
});

/**
 * Which layer a source file is in: the neutral modules both sides use (preload/, common/) at
 * the bottom, then the core (with its clients' hub and wire), the browser's door, the service,
 * and on top the shells and commands. The renderer stands apart: it reaches only the neutral
 * modules. Commands that live beside their domain (a folder's `cli.ts`, the MCP stdio shim)
 * are commands.
 */
function layer(file: string): number | 'renderer' | undefined {
  if (file.startsWith('preload/') || file.startsWith('common/')) return 0;
  if (file.startsWith('renderer/')) return 'renderer';
  if (!file.startsWith('main/')) return undefined;
  if (/^main\/(serve|electron|cli)\//.test(file) || /^main\/[^/]+\/cli\.ts$/.test(file) || file === 'main/mcp/stdio.ts') return 4;
  if (file.startsWith('main/service/')) return 3;
  if (file.startsWith('main/door/')) return 2;
  return 1;
}

describe('layers', () => {
  it('every import points down: neutral modules, core, door, service, shells; the renderer reaches only the neutral modules', () => {
    const up: string[] = [];
    for (const [file, deps] of Object.entries(tree)) {
      if (/\.(test|e2e)\.tsx?$/.test(file)) continue;
      const from = layer(file);
      if (from === undefined) continue;
      for (const d of deps ?? []) {
        if (!d.id || d.id.includes('node_modules')) continue;
        const to = layer(d.id);
        if (to === undefined) continue;
        const ok = from === 'renderer' ? to === 0 || to === 'renderer' : to !== 'renderer' && to <= from;
        if (!ok) up.push(`${file} → ${d.id}`);
      }
    }
    expect(up).toEqual([]);
  });
});
