/**
 * The one query parser of every public endpoint family (chain, providers, intelligence) and the operator reads
 * (docs/api-chain.md, docs/intelligence.md): zod parameter schemas whose every refusal is a plain sentence, so a
 * 400 reads `invalid query parameter 'X': <rule>` everywhere and never carries a validator's own words.
 * Query-string values arrive as strings (Fastify's parser makes a repeated parameter an array); the same schemas
 * also parse MCP tool arguments, which arrive as JSON values (numbers, booleans).
 * Rules: integers are plain base-10 digits (no sign, exponent, hex, fraction); numbers are plain decimals (`1.5`;
 * no sign, exponent, hex); an empty numeric value is refused (omit the parameter for its default) while an empty
 * text filter means "no filter"; a parameter given twice is refused naming it; since ≥ until blames `since`.
 */
import { z } from 'zod';
import { unknownParameters } from './errors.js';

/** The refusal of a parameter given more than once (`limit=1&limit=2`). */
export const GIVEN_ONCE = 'must be given once';
/** The refusal of an empty numeric value (`limit=`). */
const NOT_EMPTY = 'must not be empty (omit the parameter for its default)';

/** The sentence for a value that is repeated, empty or else of the wrong form `rule`. */
function formError(rule: string) {
  return (iss: { input?: unknown }) => (Array.isArray(iss.input) ? GIVEN_ONCE : iss.input === '' ? NOT_EMPTY : rule);
}

/**
 * A base-10 integer parameter in [min, max]. Strings of 1..16 digits become numbers (a JSON number is taken as
 * is); anything else (empty, sign, exponent, hex, fraction, repeated parameter) fails with a sentence naming the rule.
 * @param what unit words appended to the form rule, e.g. "of UTC Unix seconds" (or '')
 */
export function integerParam(min: number, max: number, what: string) {
  const unit = what ? ` ${what}` : '';
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v),
    z
      .number({ error: formError(`must be a base-10 integer${unit}`) })
      .int({ error: `must be an integer${unit}` })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );
}

/**
 * A plain decimal number parameter in [min, max] (`5`, `1.5`; no sign, exponent, hex or leading dot), for what the
 * contract types `number` (the intelligence endpoints' since/until). A JSON number is taken as is when finite.
 * @param what unit words appended to the form rule, e.g. "of UTC Unix seconds" (or '')
 */
export function decimalParam(min: number, max: number, what: string) {
  const unit = what ? ` ${what}` : '';
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,16}(\.\d{1,9})?$/.test(v) ? Number(v) : v),
    z
      .number({ error: formError(`must be a plain decimal number${unit} (digits, optionally a fraction such as 1.5)`) })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );
}

/**
 * A text parameter of at most `max` characters matching `pattern` (`rule` says which characters, in words). An
 * empty value is accepted: the caller treats it as "no filter".
 */
export function textParam(max: number, pattern: RegExp, rule: string) {
  return z
    .string({ error: (iss) => (Array.isArray(iss.input) ? GIVEN_ONCE : 'must be text') })
    .max(max, { error: `must be at most ${max} characters` })
    .regex(pattern, { error: rule });
}

/** One of `values`, given once. */
export function enumParam<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: formError(`must be one of ${values.join(', ')}`) });
}

/**
 * A comma-separated subset of `values` given once (`exclude=self_payment,self_funded`), as its members in the order of
 * `values` without repeats; an empty value is no member (as an empty text filter is no filter). The same text on MCP.
 */
export function subsetParam<const T extends readonly [string, ...string[]]>(values: T) {
  const rule = `must be a comma-separated list of ${values.join(', ')}`;
  return z.string({ error: formError(rule) }).transform((v, ctx) => {
    const given = v
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
    if (given.some((x) => !values.includes(x))) {
      ctx.addIssue({ code: 'custom', message: rule });
      return z.NEVER;
    }
    return values.filter((x) => given.includes(x)) as T[number][];
  });
}

/** A boolean given as true/false in a query string, or as a JSON boolean (MCP). */
export function flagParam() {
  return z
    .union([z.boolean(), z.enum(['true', 'false'])], { error: formError('must be true or false') })
    .transform((v) => v === true || v === 'true');
}

/**
 * Rejects since ≥ until, blaming `since` (a schema refinement, the window rule of every endpoint family): since is
 * inclusive, until exclusive, so such a window holds nothing and is almost always a client mistake.
 */
export function sinceBeforeUntil(f: { since?: number; until?: number }, ctx: z.RefinementCtx) {
  if (f.since !== undefined && f.until !== undefined && f.since >= f.until) {
    ctx.addIssue({ code: 'custom', path: ['since'], message: sinceNotBeforeUntil(f.since, f.until) });
  }
}

/** The rule sinceBeforeUntil states, for a check made outside a schema. */
export function sinceNotBeforeUntil(since: number, until: number): string {
  return `must be less than until (since is inclusive, until exclusive; got since=${since}, until=${until})`;
}

/**
 * A parameter object that refuses unknown members, so a misspelt filter never silently widens a query. Over HTTP the
 * listener's validator names them (`unknown query parameter 'x'`, src/http/validation.ts); elsewhere (MCP) this
 * message reads `unknown argument 'x'`.
 */
export function strictParams<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? unknownParameters('argument', iss.keys) : undefined),
  });
}

/** A zod issue as an error function receives it (the members plainIssueMessage reads). */
interface RawIssue {
  code?: string;
  input?: unknown;
  expected?: unknown;
  origin?: string;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  values?: readonly unknown[];
  keys?: readonly string[];
  format?: string;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a JSON array',
};

/**
 * A plain sentence for a zod issue whose schema gave no message of its own: the contextual error map every
 * listener's validator (src/http/validation.ts) parses with, so no answer carries zod's default text ("Invalid
 * input: expected …, received …", "Too big: …"). Never names the refused value.
 * @param inQuery true for query parameters, where an array means a parameter given more than once
 */
export function plainIssueMessage(iss: RawIssue, inQuery = false): string {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'is required';
      if (inQuery && Array.isArray(iss.input) && iss.expected !== 'array') return GIVEN_ONCE;
      return `must be ${TYPE_WORDS[String(iss.expected)] ?? String(iss.expected)}`;
    case 'too_big': {
      const unit = iss.origin === 'string' ? ' characters' : iss.origin === 'array' ? ' items' : '';
      return `must be at most ${String(iss.maximum)}${unit}${iss.inclusive === false ? ' (exclusive)' : ''}`;
    }
    case 'too_small': {
      if (iss.origin === 'string' && Number(iss.minimum) === 1) return 'must not be empty';
      const unit = iss.origin === 'string' ? ' characters' : iss.origin === 'array' ? ' items' : '';
      return `must be at least ${String(iss.minimum)}${unit}${iss.inclusive === false ? ' (exclusive)' : ''}`;
    }
    case 'invalid_value':
      return `must be one of ${(iss.values ?? []).map(String).join(', ')}`;
    case 'invalid_format':
      return iss.format === 'regex' ? 'is not in the accepted form' : `must be a valid ${iss.format ?? 'value'}`;
    case 'unrecognized_keys':
      return unknownParameters('member', iss.keys ?? []);
    default:
      return 'is not an accepted value';
  }
}
