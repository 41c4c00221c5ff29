#!/usr/bin/env node
// `npm run bench`: runs every benchmark module under bench/ (files named *.bench.ts,
// each exporting `run(): Promise<{ name: string; lines: string[] }>`) one after the
// other, printing each one's figures: ratios against a baseline measured in the same run.
// `npm run bench -- tick` runs only the modules whose name contains "tick".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filter = process.argv.slice(2);
const modules = fs.readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filter.length === 0 || filter.some((w) => f.includes(w)))
  .sort();
if (modules.length === 0) {
  console.error('No benchmark matched; the modules are: ' + fs.readdirSync(path.join(root, 'bench')).join(', '));
  process.exit(2);
}
if (modules.some((m) => /window|surface/.test(m)) && !fs.existsSync(path.join(root, 'out', 'renderer', 'index.html'))) {
  spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
}
let failed = 0;
for (const m of modules) {
  // Each module in its own process, so one's memory and timers never colour another's figures.
  const runner = `const m = await import(${JSON.stringify(path.join(root, 'bench', m))});
const r = await m.run();
console.log('\\n## ' + r.name);
for (const l of r.lines) console.log(l);
process.exit(0);`;
  const res = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', '--expose-gc', '--input-type=module', '-e', runner], { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) {
    failed++;
    console.log(`\n## ${m}: failed (exit ${res.status})`);
  }
}
process.exit(failed ? 1 : 0);
