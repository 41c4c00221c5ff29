/**
 * Arguments for a valid call, built from a tool's input_schema (openapi-sampler: required
 * properties only, from their examples, defaults, enums and bounds) and kept only when
 * the schema itself accepts them. For `tick check`'s own call of a non-mutating tool.
 */
import type { ValidateFunction } from 'ajv';
import { sample } from 'openapi-sampler';
import type { TickTool } from './describe.ts';

export function sampleArgs(schema: Record<string, unknown>, validate: ValidateFunction): Record<string, unknown> | undefined {
  let args: unknown;
  try {
    args = sample(schema as never, { skipNonRequired: true, quiet: true });
  } catch {
    return undefined;
  }
  if (args === undefined) args = {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
  return validate(args) ? (args as Record<string, unknown>) : undefined;
}

/** The first non-mutating tool (in the descriptor's order) that arguments built from its schema fit. */
export function sampleCall(tools: ReadonlyMap<string, { tool: TickTool; validate: ValidateFunction }>): { tool: string; args: Record<string, unknown> } | undefined {
  for (const { tool, validate } of tools.values()) {
    if (tool.mutates) continue;
    const args = sampleArgs(tool.input_schema, validate);
    if (args) return { tool: tool.name, args };
  }
  return undefined;
}
