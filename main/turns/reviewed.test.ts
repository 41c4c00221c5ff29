import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ReviewStore } from './reviewed.ts';
import { turnsTestEnv } from './testing.ts';

let t: ReturnType<typeof turnsTestEnv>;
beforeEach(() => { t = turnsTestEnv(); });
afterEach(() => t.cleanup());

it('keeps marks per folder and views per pane across instances, in a 0600 file', () => {
  const file = path.join(t.state, 'turns', 'review.json');
  const a = new ReviewStore(file);
  expect(a.view('p1')).toBe('turn');
  a.mark('/repo', '0123456789abcdef', true);
  a.mark('/repo', 'fedcba9876543210', true);
  a.mark('/repo', 'fedcba9876543210', false);
  a.mark('/other', 'aaaaaaaaaaaaaaaa', true);
  a.setView('p1', 'reviewed');
  const b = new ReviewStore(file);
  expect([...b.marks('/repo')]).toEqual(['0123456789abcdef']);
  expect([...b.marks('/other')]).toEqual(['aaaaaaaaaaaaaaaa']);
  expect(b.view('p1')).toBe('reviewed');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
});

it('keeps a file it cannot use aside instead of overwriting it', () => {
  const file = path.join(t.state, 'turns', 'review.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const text of ['{not json', JSON.stringify({ v: 9, marks: [] })]) {
    fs.writeFileSync(file, text);
    const s = new ReviewStore(file);
    expect(s.marks('/repo').size).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
    const kept = fs.readdirSync(path.dirname(file)).filter((f) => f.startsWith('review.json.broken-'));
    expect(kept.map((f) => fs.readFileSync(path.join(path.dirname(file), f), 'utf8'))).toContain(text);
    for (const f of kept) fs.rmSync(path.join(path.dirname(file), f));
  }
});
