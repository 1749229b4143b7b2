/**
 * What an answer to an MCP server's request for input may hold: the MCP specification's form
 * schema, a flat object of strings, numbers, booleans and lists of strings. The answer a
 * hook or a person gives is checked against the server's schema before it is sent.
 */
import type { ElicitationAction } from '../hooks/payloads';
import { isCredentialField } from './credential-field';

export type ElicitationValue = string | number | boolean | string[];
export type ElicitationContent = Record<string, ElicitationValue>;

/** An MCP server's request for input (`elicitation/create`). */
export interface ElicitationRequest {
  server: string;
  message: string;
  mode: 'form' | 'url';
  requestedSchema?: Record<string, unknown>;
  url?: string;
  elicitationId?: string;
}

export interface ElicitationAnswer {
  action: ElicitationAction;
  /** Sent only with `accept`. */
  content?: ElicitationContent;
}

/** The host's way of asking a person to fill in a server's form (VS Code's inputs, the terminal). */
export interface ElicitationPrompter {
  ask(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>;
}

/** One field of a form, as the server described it. */
export interface ElicitationField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  title?: string;
  description?: string;
  required: boolean;
  /** The values a string (or each item of a list) may take. */
  choices?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array']);

/** A credential field that takes typed text (a number or an integer too): what is typed there is not shown. */
export function isTypedCredential(field: ElicitationField): boolean {
  return (field.type === 'string' || field.type === 'number' || field.type === 'integer') && isCredentialField(field);
}

/**
 * The values `content` gives the form's credential fields, as text (`83920175` for an integer
 * recovery code, each item of a list): what the server alone may see.
 */
export function credentialValues(schema: Record<string, unknown> | undefined, content: ElicitationContent): string[] {
  const fields = new Map(elicitationFields(schema).map((field) => [field.name, field]));
  return Object.entries(content).flatMap(([name, value]) => {
    if (typeof value === 'boolean' || !isCredentialField(fields.get(name) ?? { name })) return [];
    return [value].flat().map(String);
  });
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const numberOr = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const stringOr = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** Enum values in any of the specification's spellings (`enum`, `oneOf` / `anyOf` of `const`). */
function choicesOf(schema: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.filter((v): v is string => typeof v === 'string');
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  return options?.flatMap((option) => stringOr(record(option)?.const) ?? []);
}

/** The form's fields, in the server's order; a property the specification does not allow is none. */
export function elicitationFields(schema: Record<string, unknown> | undefined): ElicitationField[] {
  const properties = record(schema?.properties) ?? {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required.filter((v): v is string => typeof v === 'string') : []);
  return Object.entries(properties).flatMap(([name, value]): ElicitationField[] => {
    const property = record(value);
    const type = property?.type;
    if (!property || typeof type !== 'string' || !TYPES.has(type)) return [];
    return [
      {
        name,
        type: type as ElicitationField['type'],
        title: stringOr(property.title),
        description: stringOr(property.description),
        required: required.has(name),
        choices: type === 'array' ? choicesOf(record(property.items) ?? {}) : choicesOf(property),
        minimum: numberOr(property.minimum ?? property.minItems),
        maximum: numberOr(property.maximum ?? property.maxItems),
        minLength: numberOr(property.minLength),
        maxLength: numberOr(property.maxLength),
      },
    ];
  });
}

/** Why `value` does not fit `field` (`is not a number`), or undefined when it does. */
export function fieldValueProblem(field: ElicitationField, value: unknown): string | undefined {
  const within = (n: number) => (field.minimum === undefined || n >= field.minimum) && (field.maximum === undefined || n <= field.maximum);
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'is not true or false';
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value)))
        return `is not ${field.type === 'integer' ? 'an integer' : 'a number'}`;
      return within(value) ? undefined : 'is out of range';
    case 'string':
      if (typeof value !== 'string') return 'is not text';
      if (field.choices && !field.choices.includes(value)) return `is not one of ${field.choices.join(', ')}`;
      if (
        (field.minLength !== undefined && value.length < field.minLength) ||
        (field.maxLength !== undefined && value.length > field.maxLength)
      )
        return 'has the wrong length';
      return undefined;
    case 'array':
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return 'is not a list of text';
      if (field.choices && value.some((item) => !field.choices?.includes(item)))
        return `holds a value not among ${field.choices.join(', ')}`;
      return within(value.length) ? undefined : 'has the wrong number of items';
  }
}

/** Text a person typed as the field's value (`yes`, `3`, `web, api`); undefined when it cannot be one. */
export function typedFieldValue(field: ElicitationField, text: string): ElicitationValue | undefined {
  switch (field.type) {
    case 'boolean':
      return /^(?:y|yes|true)$/i.test(text) ? true : /^(?:n|no|false)$/i.test(text) ? false : undefined;
    case 'number':
    case 'integer':
      return text.trim() === '' || Number.isNaN(Number(text)) ? undefined : Number(text);
    case 'array':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'string':
      return text;
  }
}

/** Why `content` does not answer the form, or undefined when it does. */
export function elicitationContentProblem(
  schema: Record<string, unknown> | undefined,
  content: Record<string, unknown>,
): string | undefined {
  const fields = new Map(elicitationFields(schema).map((field) => [field.name, field]));
  for (const [name, value] of Object.entries(content)) {
    const field = fields.get(name);
    if (!field) return `"${name}" is not a field of the form`;
    const problem = fieldValueProblem(field, value);
    if (problem) return `"${name}" ${problem}`;
  }
  const missing = [...fields.values()].find((field) => field.required && !(field.name in content));
  return missing ? `"${missing.name}" is required` : undefined;
}
