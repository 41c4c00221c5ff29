/**
 * tick/describe results: validation of every rule of Tick protocol 3, section 5.3,
 * and the argument validators (ajv) each tool's input_schema compiles to.
 * Pure: no I/O. Unknown fields are ignored (4.3).
 */
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import { encodedSize, LIMITS, PROTOCOL } from './limits.ts';

/**
 * ajv's 2019-09 and 2020-12 drafts and ajv-formats, loaded by the first Tick that describes
 * itself, not at the core's start (~1.2 MiB of the service's heap at rest).
 */
interface Drafts {
  Ajv2019: typeof import('ajv/dist/2019.js').Ajv2019;
  Ajv2020: typeof import('ajv/dist/2020.js').Ajv2020;
  addFormats: (ajv: unknown) => unknown;
}
let drafts: Drafts | undefined;
function loadDrafts(): Drafts {
  if (!drafts) {
    const load = createRequire(import.meta.url);
    drafts = {
      Ajv2019: (load('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019,
      Ajv2020: (load('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020,
      addFormats: load('ajv-formats') as (ajv: unknown) => unknown,
    };
  }
  return drafts;
}

export interface TickTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  mutates: boolean;
}

export interface StateSeries {
  path: string;
  newest: 'first' | 'last';
}

export interface TickDescriptor {
  protocol: 3;
  kind: string;
  title: string;
  description: string;
  revision: string;
  tools: TickTool[];
  recover_with?: string;
  state?: { series?: StateSeries[] };
}

/** A descriptor that passed 5.3, with one compiled argument validator per tool. */
export interface Catalog {
  descriptor: TickDescriptor;
  tools: Map<string, { tool: TickTool; validate: ValidateFunction }>;
  /** Encoded size of the describe result, in UTF-8 bytes. */
  bytes: number;
}

export type DescribeCheck = { ok: true; catalog: Catalog } | { ok: false; error: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

/** Compile an input_schema; throws with ajv's reason when it is not a valid JSON Schema. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const draft = typeof schema.$schema === 'string' ? schema.$schema : '';
  const opts = { strict: false, allErrors: true, addUsedSchema: false, logger: false as const };
  const { Ajv2019, Ajv2020, addFormats } = loadDrafts();
  const ajv = draft.includes('2020-12') ? new Ajv2020(opts) : draft.includes('2019-09') ? new Ajv2019(opts) : new Ajv(opts);
  addFormats(ajv);
  return ajv.compile(schema);
}

/** Validate a tick/describe result against every rule of 5.3. */
export function validateDescriptor(result: unknown): DescribeCheck {
  const fail = (error: string): DescribeCheck => ({ ok: false, error });
  if (!isObject(result)) return fail('the tick/describe result is not a JSON object; a Tick must answer with its descriptor');
  const bytes = encodedSize(result);
  if (bytes > LIMITS.describeBytes) {
    return fail(`the tick/describe result is ${bytes} bytes encoded, over the ${LIMITS.describeBytes}-byte limit; move large text out of the catalog`);
  }
  if (result.protocol !== PROTOCOL) {
    return fail(`unsupported Tick protocol version ${JSON.stringify(result.protocol ?? null)}; this host speaks Tick protocol ${PROTOCOL}`);
  }
  if (!nonEmpty(result.kind)) return fail('the descriptor\'s kind is empty or not a string; declare a kind such as "example.counter"');
  if (!nonEmpty(result.title)) return fail('the descriptor\'s title is empty or not a string; give the Tick a short title');
  if (typeof result.revision !== 'string' || result.revision === '') {
    return fail('the descriptor\'s revision is empty or not a string; name the tool catalog with a nonempty revision');
  }
  if (result.description !== undefined && typeof result.description !== 'string') {
    return fail('the descriptor\'s description is not a string; describe the Tick in one or two sentences');
  }
  if (!Array.isArray(result.tools)) return fail('the descriptor\'s tools is not an array; list the tools (an empty list is fine)');
  const tools = new Map<string, { tool: TickTool; validate: ValidateFunction }>();
  for (const [i, t] of result.tools.entries()) {
    if (!isObject(t)) return fail(`tool ${i} is not an object; each tool needs name, description, input_schema and mutates`);
    if (!nonEmpty(t.name)) return fail(`tool ${i} has an empty or missing name; give every tool a nonempty name`);
    if (tools.has(t.name)) return fail(`the tool name "${t.name}" appears twice; tool names must be unique within the catalog`);
    if (typeof t.mutates !== 'boolean') return fail(`tool "${t.name}" does not say whether it mutates; set mutates to true or false`);
    if (t.description !== undefined && typeof t.description !== 'string') return fail(`tool "${t.name}" has a description that is not a string; describe it in words`);
    if (!isObject(t.input_schema)) return fail(`tool "${t.name}" has an input_schema that is not an object; give a JSON Schema object such as {"type":"object"}`);
    let validate: ValidateFunction;
    try {
      validate = compileSchema(t.input_schema);
    } catch (e) {
      return fail(`tool "${t.name}" has an input_schema that is not a valid JSON Schema (${oneLine((e as Error).message)}); fix the schema`);
    }
    tools.set(t.name, {
      tool: { name: t.name, description: typeof t.description === 'string' ? t.description : '', input_schema: t.input_schema, mutates: t.mutates },
      validate,
    });
  }
  if (result.recover_with !== undefined) {
    if (typeof result.recover_with !== 'string') return fail('recover_with is not a string; name a query tool of the catalog');
    const r = tools.get(result.recover_with);
    if (!r) return fail(`recover_with names "${result.recover_with}", which is not in the tool catalog; name a catalog tool`);
    if (r.tool.mutates) return fail(`recover_with names "${result.recover_with}", which mutates; it must name a tool with mutates false`);
  }
  let series: StateSeries[] | undefined;
  if (result.state !== undefined) {
    if (!isObject(result.state)) return fail('the descriptor\'s state is not an object; declare {"series": [...]} or leave it out');
    if (result.state.series !== undefined) {
      if (!Array.isArray(result.state.series)) return fail('state.series is not an array; list {path, newest} entries');
      series = [];
      const seen = new Set<string>();
      for (const [i, s] of result.state.series.entries()) {
        if (!isObject(s) || typeof s.path !== 'string') return fail(`state.series entry ${i} has no string path; give a JSON Pointer such as "/recent"`);
        if (s.path !== '' && !s.path.startsWith('/')) return fail(`state.series path "${s.path}" neither is empty nor starts with "/"; use a JSON Pointer such as "/recent"`);
        if (seen.has(s.path)) return fail(`state.series path "${s.path}" appears twice; series paths must be unique`);
        if (s.newest !== 'first' && s.newest !== 'last') return fail(`state.series path "${s.path}" has newest ${JSON.stringify(s.newest ?? null)}; use "first" or "last"`);
        seen.add(s.path);
        series.push({ path: s.path, newest: s.newest });
      }
    }
  }
  const descriptor: TickDescriptor = {
    protocol: PROTOCOL,
    kind: result.kind,
    title: result.title,
    description: typeof result.description === 'string' ? result.description : '',
    revision: result.revision,
    tools: [...tools.values()].map((t) => t.tool),
    ...(typeof result.recover_with === 'string' ? { recover_with: result.recover_with } : {}),
    ...(series ? { state: { series } } : {}),
  };
  return { ok: true, catalog: { descriptor, tools, bytes } };
}

/** Check call arguments against the tool's input_schema; undefined when they pass. */
export function checkArgs(catalog: Catalog, tool: string, args: unknown): string | undefined {
  const t = catalog.tools.get(tool);
  if (!t) {
    const names = [...catalog.tools.keys()];
    return `the Tick has no tool "${tool}"; its tools are ${names.length ? names.map((n) => `"${n}"`).join(', ') : '(none)'}`;
  }
  if (!isObject(args)) return `the arguments for "${tool}" must be a JSON object ({} when it takes none)`;
  if (t.validate(args)) return undefined;
  const errs = (t.validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '(args)'} ${e.message ?? 'is invalid'}`);
  return `the arguments for "${tool}" do not match its input_schema: ${errs.join('; ')}; fix them and call again`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim().slice(0, 300);
}
