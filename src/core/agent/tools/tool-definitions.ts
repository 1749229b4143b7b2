import { toolFunctionDefinition, type Tool, type ToolFunctionDefinition } from './tool';

const definitions = new WeakMap<Tool, ToolFunctionDefinition>();
let lastList: ToolFunctionDefinition[] = [];

/** A tool's definition is built once (a zod schema's JSON Schema costs), though the list is asked for each step. */
function definitionOf(tool: Tool): ToolFunctionDefinition {
  let definition = definitions.get(tool);
  if (!definition) definitions.set(tool, (definition = toolFunctionDefinition(tool)));
  return definition;
}

/**
 * The tools' definitions for a model request: the same list object while the tools stay the
 * same, so what is keyed by the list (the model boundary's redaction, the audit's tools hash)
 * is worked out once, not at every step of a long session. Frozen, since it is shared.
 */
export function toolDefinitions(tools: readonly Tool[]): ToolFunctionDefinition[] {
  const next = tools.map(definitionOf);
  const same = next.length === lastList.length && next.every((definition, i) => definition === lastList[i]);
  if (!same) lastList = Object.freeze(next) as ToolFunctionDefinition[];
  return lastList;
}
