/**
 * Prices of models, from the newest dated file in assets/prices (`<YYYY-MM-DD>.json`, per
 * million tokens), and a session's cost at them: a model is matched by its whole name, or by
 * its name less a date or `-latest` at its end (`claude-sonnet-4-5-20250929` by
 * `claude-sonnet-4-5`, `gpt-5-mini-2025-08-07` by `gpt-5-mini`, Vertex AI's `claude-sonnet-4-5@20250929` by
 * `claude-sonnet-4-5`), never by a shorter key it
 * starts with (`claude-opus-4-5` is not `claude-opus-4`, `gpt-5.2` not `gpt-5`: their
 * prices differ); a model with no key is not priced, and the session says which (its tokens
 * are still counted).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionUsage } from '../../preload/contract.ts';
import type { TokensByModel } from './transcripts.ts';

export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface PriceFile {
  date: string;
  currency: string;
  models: Record<string, Price>;
}

export const PRICES_DIR = path.resolve(import.meta.dirname, '../../assets/prices');

/** The newest price file in the folder (by the date in its name). */
export function loadPrices(dir = PRICES_DIR): PriceFile {
  const newest = fs.readdirSync(dir).filter((f) => /^\d{4}-\d{2}-\d{2}\.json$/.test(f)).sort().pop();
  if (!newest) throw new Error(`there is no price file (YYYY-MM-DD.json) in ${dir}`);
  const v = JSON.parse(fs.readFileSync(path.join(dir, newest), 'utf8')) as PriceFile;
  return { date: v.date ?? newest.slice(0, 10), currency: v.currency ?? 'USD', models: v.models ?? {} };
}

/** A model's name less a release date or `-latest` at its end: `-20250929`, `-2025-08-07`, Vertex AI's `@20250929`. */
export function modelFamily(model: string): string {
  return model.replace(/(?:-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)|@\d{8})$/, '');
}

/** The price of a model: its name's key, or its family's (`modelFamily`); none for a model the file does not list. */
export function priceOf(prices: PriceFile, model: string): Price | undefined {
  const own = (key: string): Price | undefined => (Object.hasOwn(prices.models, key) ? prices.models[key] : undefined);
  return own(model) ?? own(modelFamily(model));
}

/** A session's usage: its tokens summed over models, and their cost where every model has a price. */
export function sessionUsage(tokens: TokensByModel, prices: PriceFile): SessionUsage {
  const out: SessionUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, currency: prices.currency, pricesDate: prices.date };
  let cost = 0;
  const unpriced: string[] = [];
  for (const [model, t] of tokens) {
    out.model = model;
    out.input += t.input;
    out.output += t.output;
    out.cacheRead += t.cacheRead;
    out.cacheWrite += t.cacheWrite;
    const p = priceOf(prices, model);
    if (!p) unpriced.push(model);
    else cost += (t.input * p.input + t.output * p.output + t.cacheRead * p.cacheRead + t.cacheWrite * p.cacheWrite) / 1_000_000;
  }
  if (unpriced.length) out.unpriced = unpriced;
  else if (tokens.size > 0) out.cost = cost;
  return out;
}
