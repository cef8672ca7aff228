// From the compiled validators' errors to the contract's answer: the `errors` list (components/schemas/
// ValidationIssue) and the status and code (decision `validation-code-precedence`).
import type { ValidatorError } from './validator.js';

export type IssueLocation = 'body' | 'query' | 'path' | 'header';

/** One violated rule, as the contract's `ValidationIssue` describes it. */
export interface ValidationIssue {
  location: IssueLocation;
  /** JSON Pointer of the value within its location (`/amount`, `/basket/0/name`, `/external_id`); '' for the whole body. */
  path: string;
  message: string;
  keyword: string;
  /** The rule's own code (`x-error-codes`), when the contract gives the rule one. */
  error_code?: string;
}

export interface ErrorAnswer {
  status: number;
  error_code: string;
}

/** What the answer depends on: the operation's generic validation answer and its documented codes per status. */
export interface ValidationContract {
  validationError?: ErrorAnswer;
  responses: Readonly<Record<number, readonly string[]>>;
}

/**
 * Used only if an operation without `x-validation-error` gets a request that breaks its schema. The contract
 * gives that extension to every operation with a parameter or body that can fail (path parameters cannot:
 * the path matcher never matches an empty one), so this is a safety net, not a documented answer.
 */
const FALLBACK_VALIDATION_ERROR: ErrorAnswer = { status: 400, error_code: 'API_VALIDATION_ERROR' };

/** The operation's answer to a broken rule without a code of its own. */
export function genericValidationError(contract: ValidationContract): ErrorAnswer {
  return contract.validationError ?? FALLBACK_VALIDATION_ERROR;
}

/** The rule's own code: `x-error-codes[keyword]` of the schema object holding the failed keyword. */
export function ownErrorCode(error: ValidatorError): string | undefined {
  const codes = error.parentSchema?.['x-error-codes'];
  if (typeof codes !== 'object' || codes === null || Array.isArray(codes)) return undefined;
  const code: unknown = (codes as Record<string, unknown>)[error.keyword];
  return typeof code === 'string' ? code : undefined;
}

const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Decision `error-body-bounds` (components/schemas/Error and ValidationIssue): an answer's `message` holds at
 * most this many characters, and each issue's `message` and `path` at most ISSUE_TEXT_LENGTH. They quote
 * what the request sent (a field name of any length), so they are cut to fit.
 */
export const MESSAGE_LENGTH = 4096;
export const ISSUE_TEXT_LENGTH = 1024;

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** The text on one line: control characters (a field name may hold any) written as `\uXXXX`. */
export function oneLine(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** At most `max` characters, the last one `…` when the text was cut (never half of a surrogate pair). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

/** Where the failing value is; for a missing property, where it should have been. */
function issuePath(error: ValidatorError): string {
  const missing = error.params.missingProperty;
  return (error.keyword === 'required' || error.keyword === 'dependentRequired') && typeof missing === 'string'
    ? `${error.instancePath}/${escapeToken(missing)}`
    : error.instancePath;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const quote = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));
/** At most this many allowed values are listed in a message; a longer list is cut with "...". */
const LISTED_VALUES = 12;
const listOf = (values: readonly unknown[]): string =>
  values.slice(0, LISTED_VALUES).map(quote).join(', ') + (values.length > LISTED_VALUES ? ', ...' : '');

/**
 * The condition of an `if` in words, when it is the contract's usual shape (fields equal to a constant or
 * one of a few values): "when customer_type is 'INDIVIDUAL'". Undefined for any other shape.
 */
function describeCondition(condition: unknown): string | undefined {
  if (!isRecord(condition) || !isRecord(condition.properties)) return undefined;
  const parts: string[] = [];
  for (const [name, rule] of Object.entries(condition.properties)) {
    if (isRecord(rule) && 'const' in rule) parts.push(`${name} is ${quote(rule.const)}`);
    else if (isRecord(rule) && Array.isArray(rule.enum)) parts.push(`${name} is one of ${listOf(rule.enum)}`);
    else return undefined;
  }
  return parts.length > 0 ? `when ${parts.join(' and ')}` : undefined;
}

/**
 * The condition an error's rule applies under: the innermost `if` whose `then` or `else` holds the failed
 * keyword. Ajv reports it as an `if` error beside the branch's own errors, with the `if` beside it in its
 * parent schema.
 */
function conditionOf(error: ValidatorError, conditions: readonly ValidatorError[]): string | undefined {
  let best: ValidatorError | undefined;
  for (const candidate of conditions) {
    if (!candidate.schemaPath.endsWith('/if')) continue;
    const branch = `${candidate.schemaPath.slice(0, -2)}${candidate.params.failingKeyword === 'else' ? 'else' : 'then'}/`;
    if (error.schemaPath.startsWith(branch) && (!best || candidate.schemaPath.length > best.schemaPath.length))
      best = candidate;
  }
  return best ? describeCondition(best.parentSchema?.if) : undefined;
}

/**
 * The rule in words. Ajv's own message is kept where it already says the rule ("must be string", "must be
 * < 100"); the ones that only name a schema construct ("boolean schema is false", "must NOT be valid",
 * "must be equal to one of the allowed values") are said as the rule they stand for, with the condition the
 * rule applies under.
 */
function messageOf(error: ValidatorError, conditions: readonly ValidatorError[]): string {
  const { keyword, params, parentSchema } = error;
  const excluded = isRecord(parentSchema?.not) ? parentSchema.not : undefined;
  let message: string;
  if (keyword === 'false schema') message = 'must not be given';
  else if (keyword === 'not' && Array.isArray(excluded?.required))
    message = `must not have ${excluded.required.map(quote).join(' or ')}`;
  else if (keyword === 'not' && Array.isArray(excluded?.enum)) message = `must not be one of ${listOf(excluded.enum)}`;
  else if (keyword === 'not') message = 'must not have the form this rule excludes';
  else if (keyword === 'enum' && Array.isArray(params.allowedValues))
    message = `must be one of ${listOf(params.allowedValues)}`;
  else if (keyword === 'const' && 'allowedValue' in params) message = `must be ${quote(params.allowedValue)}`;
  else if (keyword === 'additionalProperties' && typeof params.additionalProperty === 'string')
    message = `must not have the field ${quote(params.additionalProperty)}`;
  else if (keyword === 'propertyNames' && typeof params.propertyName === 'string')
    message = `must not have a field named ${quote(params.propertyName)}`;
  else message = error.message ?? `must pass "${keyword}"`;
  const condition = conditionOf(error, conditions);
  return condition ? `${message} ${condition}` : message;
}

/**
 * One issue per error. `if` errors are left out: they only say that the `then` branch failed, and that
 * branch's own error (with its own code, and the `if`'s condition in its message) is reported beside them.
 */
export function toIssues(
  location: IssueLocation,
  errors: readonly ValidatorError[] | null | undefined,
): ValidationIssue[] {
  const all = errors ?? [];
  // Looked up per error, so gathered once: a body with 100,000 bad items has as many errors and few `if`s.
  const conditions = all.filter((error) => error.keyword === 'if');
  return all
    .filter((error) => error.keyword !== 'if')
    .map((error) => {
      const code = ownErrorCode(error);
      const path = clip(oneLine(issuePath(error)), ISSUE_TEXT_LENGTH);
      const message = clip(oneLine(messageOf(error, conditions)), ISSUE_TEXT_LENGTH);
      return { location, path, message, keyword: error.keyword, ...(code === undefined ? {} : { error_code: code }) };
    });
}

/** At most this many violations are listed in an answer's `errors` and message; the count says how many there were. */
export const LISTED_ISSUES = 100;

/**
 * Decision `validation-code-precedence`: when every violation carries the same own code, that code, at the
 * status the operation documents it under (or the generic validation status when it documents it nowhere);
 * otherwise the operation's generic validation answer (`x-validation-error`).
 */
export function validationAnswer(issues: readonly ValidationIssue[], contract: ValidationContract): ErrorAnswer {
  const generic = genericValidationError(contract);
  const codes = new Set(issues.map((issue) => issue.error_code));
  const [only] = codes;
  if (codes.size !== 1 || only === undefined) return generic;
  const documentedAt = Object.entries(contract.responses).find(([, documented]) => documented.includes(only));
  return { status: documentedAt ? Number(documentedAt[0]) : generic.status, error_code: only };
}

/** The body of a validation failure: `{ error_code, message, errors }`. */
export function validationErrorBody(
  answer: ErrorAnswer,
  issues: readonly ValidationIssue[],
): { error_code: string; message: string; errors: ValidationIssue[] } {
  // A body of 100,000 bad items would otherwise get an answer of 100,000 entries (megabytes) for one mistake.
  const listed = issues.slice(0, LISTED_ISSUES);
  const described = listed
    .map((issue) => `${issue.location} ${issue.path || '(whole body)'} ${issue.message}`)
    .join('; ');
  const more = issues.length > listed.length ? `; and ${issues.length - listed.length} more like them` : '';
  return {
    error_code: answer.error_code,
    message: clip(
      `The request breaks ${issues.length} rule${issues.length === 1 ? '' : 's'}: ${described}${more}.`,
      MESSAGE_LENGTH,
    ),
    errors: listed,
  };
}
