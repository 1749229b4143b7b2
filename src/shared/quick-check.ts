import * as z from 'zod';

/**
 * A fast yes for values a zod schema surely accepts, derived from the schema itself. In a
 * webview, whose Content-Security-Policy forbids the code zod generates, zod checks each field
 * through its generic path and copies every object: 20,000 audit records cost more than the
 * rest of opening the timeline. `quickCheck(schema)` answers true only for shapes it fully
 * understands (objects, discriminated unions, arrays, strings, finite numbers with integer and
 * bound checks, booleans, enums, literals, optional, nullable, unknown) and false for anything
 * else, so a caller falls back to zod, which decides and explains. Values it accepts are used as
 * they are: keys a stripping object would drop stay.
 */

type Check = (value: unknown) => boolean;

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check: string; format?: string; value?: unknown; inclusive?: boolean } } }>;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  entries?: Record<string, unknown>;
  values?: unknown[];
}

const never: Check = () => false;
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function numberCheck(def: Def): Check {
  const tests: Array<(n: number) => boolean> = [];
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (c.check === 'number_format' && c.format === 'safeint') tests.push(Number.isSafeInteger);
    else if (c.check === 'greater_than' && typeof c.value === 'number') {
      const min = c.value;
      tests.push(c.inclusive ? (n) => n >= min : (n) => n > min);
    } else if (c.check === 'less_than' && typeof c.value === 'number') {
      const max = c.value;
      tests.push(c.inclusive ? (n) => n <= max : (n) => n < max);
    } else return never;
  }
  return (value) => typeof value === 'number' && Number.isFinite(value) && tests.every((test) => test(value));
}

function objectCheck(def: Def): Check {
  const catchall = def.catchall ? defOf(def.catchall).type : undefined;
  // A strict object (catchall never) refuses extra keys: left to zod.
  if (catchall !== undefined && catchall !== 'unknown' && catchall !== 'any') return never;
  const fields = Object.entries(def.shape ?? {}).map(([key, schema]) => {
    const check = compile(schema);
    // zod refuses a missing key even where any value (undefined included) is fine.
    const type = defOf(schema).type;
    return [
      key,
      type === 'unknown' || type === 'any'
        ? (value: Record<string, unknown>) => key in value
        : (value: Record<string, unknown>) => check(value[key]),
    ] as const;
  });
  return (value) => isRecord(value) && fields.every(([, check]) => check(value));
}

function unionCheck(def: Def): Check {
  const key = def.discriminator;
  if (key === undefined) return never;
  const byTag = new Map<unknown, Check>();
  for (const option of def.options ?? []) {
    const tag = defOf(option).shape?.[key];
    const tagDef = tag ? defOf(tag) : undefined;
    if (tagDef?.type !== 'literal' || !tagDef.values) return never;
    for (const literal of tagDef.values) byTag.set(literal, compile(option));
  }
  return (value) => isRecord(value) && (byTag.get(value[key]) ?? never)(value);
}

function compile(schema: z.ZodType): Check {
  const def = defOf(schema);
  const plain = (def.checks ?? []).length === 0;
  switch (def.type) {
    case 'unknown':
    case 'any':
      return () => true;
    case 'string':
      return plain ? (value) => typeof value === 'string' : never;
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'number':
      return numberCheck(def);
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return (value) => values.has(value);
    }
    case 'literal': {
      const values = new Set(def.values ?? []);
      return (value) => values.has(value);
    }
    case 'optional': {
      const inner = def.innerType ? compile(def.innerType) : never;
      return (value) => value === undefined || inner(value);
    }
    case 'nullable': {
      const inner = def.innerType ? compile(def.innerType) : never;
      return (value) => value === null || inner(value);
    }
    case 'array': {
      const element = def.element && plain ? compile(def.element) : never;
      return (value) => Array.isArray(value) && value.every(element);
    }
    case 'object':
      return plain ? objectCheck(def) : never;
    case 'union':
      return plain ? unionCheck(def) : never;
    default:
      return never;
  }
}

/** True only when `schema` surely accepts the value (see above); false means "ask zod". */
export function quickCheck(schema: z.ZodType): Check {
  return compile(schema);
}

/**
 * `z.array(item)`, with the quick check first: a list it accepts is passed on as is; any other
 * is parsed by zod, whose issues are the schema's.
 */
export function quickArray<T extends z.ZodType>(item: T): z.ZodType<Array<z.output<T>>, unknown> {
  const full = z.array(item);
  const quick = quickCheck(full);
  return z.unknown().transform((value, ctx) => {
    if (quick(value)) return value as Array<z.output<T>>;
    const parsed = full.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });
}
