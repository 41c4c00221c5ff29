/**
 * Every request's payload checked against its JSON Schema before any handler runs.
 * The schemas (preload/contract.schema.json) are generated from the contract's types by
 * `npm run contract`, so the types are the one source; a payload that breaks them is
 * answered with one sentence naming the field, and nothing changes. Pure: no I/O.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { RequestName } from '../preload/contract.ts';
import schemas from '../preload/contract.schema.json' with { type: 'json' };

/** Deeper payloads are refused before the schema is walked (its checks recurse). */
export const MAX_PAYLOAD_DEPTH = 1000;

// strictNumbers: Infinity and NaN (which JSON.parse makes of 1e400) are not numbers here.
// validateSchema: false: the schemas are generated, and checked against the meta-schema by
// contract-check.test.ts; checking them at every start cost the service ~60-100 ms.
const ajv = new Ajv({ allErrors: false, strict: false, strictNumbers: true, verbose: true, validateSchema: false });
ajv.addSchema({ $id: 'contract', definitions: schemas.definitions });
const compiled = new Map<string, ValidateFunction>();
const payloadSchemas = schemas.requests as Record<string, object>;

function validator(name: string): ValidateFunction | undefined {
  let v = compiled.get(name);
  if (!v && payloadSchemas[name]) {
    v = ajv.compile(payloadSchemas[name]);
    compiled.set(name, v);
  }
  return v;
}

/** How deep a JSON value nests (objects and arrays), counted without recursion; stops past `limit`. */
export function nestingDepth(value: unknown, limit = MAX_PAYLOAD_DEPTH): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth]);
  }
  return max;
}

/** `/layout/children/0/sizes` → `layout.children[0].sizes`. */
function fieldName(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  let s: string;
  try {
    s = typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
  } catch {
    s = typeof value;
  }
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

const TYPE_WORD: Record<string, string> = { string: 'text', number: 'a number', integer: 'a whole number', boolean: 'true or false', object: 'an object', array: 'a list', null: 'null' };

/** One sentence for the first thing wrong (a union's own error when the value fits none of its shapes). */
function sentence(name: string, errors: ErrorObject[]): string {
  const e = errors.find((x) => x.keyword === 'anyOf' || x.keyword === 'oneOf') ?? errors[0]!;
  const where = fieldName(e.instancePath);
  const field = where ? `"${where}"` : 'the payload';
  const tail = 'nothing was changed';
  switch (e.keyword) {
    case 'required':
      return `request "${name}" needs "${fieldName(e.instancePath, (e.params as { missingProperty: string }).missingProperty)}"; ${tail}.`;
    case 'additionalProperties': {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys(((e.parentSchema as { properties?: object })?.properties) ?? {});
      return `request "${name}" has no field "${fieldName(e.instancePath, extra)}"${known.length ? ` (its fields: ${known.join(', ')})` : ''}; ${tail}.`;
    }
    case 'type': {
      const want = String((e.params as { type: string }).type).split(',').map((t) => TYPE_WORD[t] ?? t).join(' or ');
      return `request "${name}": ${field} must be ${want}, not ${shown(e.data)}; ${tail}.`;
    }
    case 'enum':
    case 'const': {
      const allowed = e.keyword === 'enum' ? (e.params as { allowedValues: unknown[] }).allowedValues : [(e.params as { allowedValue: unknown }).allowedValue];
      return `request "${name}": ${field} must be ${allowed.map((a) => JSON.stringify(a)).join(', ').replace(/, ([^,]*)$/, ' or $1')}, not ${shown(e.data)}; ${tail}.`;
    }
    case 'not': // Record<string, never>: no field at all
      return `request "${name}" has no field "${where}" (it takes none); ${tail}.`;
    case 'anyOf':
    case 'oneOf':
      return `request "${name}": ${field} has none of the shapes it may take (${shown(e.data)}); ${tail}.`;
    default:
      return `request "${name}": ${field} ${e.message ?? 'is not valid'}; ${tail}.`;
  }
}

/** Why this payload breaks the contract, in one sentence; undefined when it fits. */
export function payloadProblem(name: RequestName, payload: unknown): string | undefined {
  const validate = validator(name);
  if (!validate) return `request "${name}" has no schema in this build: run \`npm run contract\` (the schemas are generated from preload/contract.ts).`;
  if (nestingDepth(payload) > MAX_PAYLOAD_DEPTH) return `request "${name}" nests more than ${MAX_PAYLOAD_DEPTH} levels deep: send a flatter payload; nothing was changed.`;
  if (validate(payload)) return undefined;
  return sentence(name, validate.errors ?? []);
}
