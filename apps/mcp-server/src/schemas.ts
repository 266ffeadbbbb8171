import { z } from 'zod';

/**
 * Input schemas as tools/list shows them, and arguments checked against them (issue 24 items 3 and 4).
 * The JSON Schema is zod 4's own (`z.toJSONSchema`), made compact: no `$schema` on every tool, no
 * `maximum: 9007199254740991` from `.int()`, no ISO date-time or email regex next to its `format`.
 * Objects are strict (`additionalProperties: false`), and a call with an argument the tool does not
 * take is refused with an error naming it and the ones that exist, instead of being silently dropped.
 */
export type JsonSchema = { [key: string]: unknown };

/** Limits at or above these are guards, left out of the published schema (still checked). */
const GUARD = { maxLength: 128, maxItems: 200 } as const;

function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) if (k !== '$schema') out[k] = tidy(v);
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (typeof out.format === 'string') delete out.pattern; // date-time, email: the format says it
  // Bounds that only guard the service (ids of 128 characters, 20,000 turns) cost every client tokens
  // and guide no model; they are still enforced, and a refusal names them. Small ones stay: they guide.
  if (out.minLength === 1) delete out.minLength;
  if (out.minItems === 1) delete out.minItems;
  if (typeof out.maxLength === 'number' && out.maxLength >= GUARD.maxLength) delete out.maxLength;
  if (typeof out.maxItems === 'number' && out.maxItems >= GUARD.maxItems) delete out.maxItems;
  return out;
}

/** The compact JSON Schema of a tool's arguments (a strict object of `shape`). */
export function inputJsonSchema(schema: z.ZodObject): JsonSchema {
  return tidy(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as JsonSchema;
}

type Path = ReadonlyArray<PropertyKey>;

const pathText = (path: Path) =>
  path.reduce<string>((s, seg) => (typeof seg === 'number' ? `${s}[${seg}]` : s ? `${s}.${String(seg)}` : String(seg)), '');

function valueAt(value: unknown, path: Path): unknown {
  let v = value;
  for (const seg of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[seg as never] : undefined;
  return v;
}

/** The property names the schema allows at `path` (through arrays and nullable unions). */
function propertiesAt(schema: JsonSchema, path: Path): string[] {
  let node: JsonSchema | undefined = schema;
  const unwrap = (n: JsonSchema | undefined): JsonSchema | undefined =>
    n && Array.isArray(n.anyOf) ? (n.anyOf as JsonSchema[]).find((b) => b.properties || b.items) : n;
  for (const seg of path) {
    node = unwrap(node);
    node = typeof seg === 'number' ? (node?.items as JsonSchema | undefined) : ((node?.properties as Record<string, JsonSchema> | undefined)?.[String(seg)]);
  }
  return Object.keys((unwrap(node)?.properties as object | undefined) ?? {});
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function describeIssue(tool: string, issue: z.core.$ZodIssue, args: unknown, schema: JsonSchema): string {
  const at = pathText(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const names = issue.keys.map((k) => `"${k}"`).join(', ');
      const allowed = propertiesAt(schema, issue.path).join(', ');
      return issue.path.length === 0
        ? `unknown argument${issue.keys.length > 1 ? 's' : ''} ${names}: ${tool} takes only ${allowed || 'no arguments'}`
        : `unknown field${issue.keys.length > 1 ? 's' : ''} ${names} in ${at}: its fields are ${allowed}`;
    }
    case 'invalid_value':
      return `${at || 'the value'} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(valueAt(args, issue.path))})`;
    case 'invalid_type': {
      const got = valueAt(args, issue.path);
      if (got === undefined) return `${at} is required`;
      return `${at || 'the arguments'} must be ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`} (got ${kind(got)})`;
    }
    default:
      return `${at ? `${at}: ` : ''}${issue.message}`;
  }
}

/** The arguments parsed, or the message of the tool error refusing them (every problem, named by path). */
export function parseArguments<T>(tool: string, schema: z.ZodType<T>, json: JsonSchema, args: unknown): { ok: true; value: T } | { ok: false; message: string } {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = [...new Set(parsed.error.issues.map((i) => describeIssue(tool, i, args ?? {}, json)))];
  return { ok: false, message: `Invalid arguments for ${tool}: ${problems.join('; ')}. Nothing was done or charged.` };
}

/** A name or id given as free text (a company, a segment): PostgreSQL holds no NUL character, so one is refused by name. */
export const nameText = (field: string, max = 200) =>
  z.string().min(1).max(max).refine((v) => !v.includes('\u0000'), `${field} has a NUL character, which no name or id holds`);
