/**
 * What the service loads at its start: the modules its entry imports, and those it imports
 * once it holds its lock (the door, the core, the memory returner), read by dpdm without
 * type-only imports and without `import()`. Features a person may never use load when first
 * used, not at every start: what they hold stays out of the resting service's memory
 * (docs/spec/performance.md, "The service at rest").
 */
import path from 'node:path';
import { parseDependencyTree } from 'dpdm';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** main.ts imports the other three with `import()` as soon as it holds the lock. */
const AT_START = ['main/service/main.ts', 'main/service/door.ts', 'main/service/service.ts', 'main/service/memory.ts'];
/** Loaded by the feature that needs them (the first agent, Tick, SKILL.md, phone), never at the start. */
const LATER = ['zod', '@modelcontextprotocol/sdk', 'yaml', 'ajv/dist/2019', 'ajv/dist/2020', 'ajv-formats', 'web-push', 'qrcode', 'selfsigned'];

it('the service\'s start imports none of the packages its features load when first used', async () => {
  const tree = await parseDependencyTree(AT_START, { context: ROOT, transform: true, skipDynamicImports: true, tsconfig: path.join(ROOT, 'tsconfig.json') });
  expect(Object.keys(tree)).toContain('main/app.ts');
  const packages = new Set<string>();
  for (const deps of Object.values(tree)) for (const d of deps ?? []) if (!d.request.startsWith('.') && !d.request.startsWith('node:')) packages.add(d.request);
  // The check sees packages at all: the terminal's own are there.
  expect(packages).toContain('node-pty');
  const early = [...packages].filter((p) => LATER.some((l) => p === l || p.startsWith(`${l}/`) || p.startsWith(`${l}.`)));
  expect(early).toEqual([]);
}, 60_000);
