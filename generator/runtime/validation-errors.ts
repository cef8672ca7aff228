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

/** Where the failing value is; for a missing property, where it should have been. */
function issuePath(error: ValidatorError): string {
  const missing = error.params.missingProperty;
  return (error.keyword === 'required' || error.keyword === 'dependentRequired') && typeof missing === 'string' ? `${error.instancePath}/${escapeToken(missing)}` : error.instancePath;
}

/**
 * One issue per error. `if` errors are left out: they only say that the `then` branch failed, and that
 * branch's own error (with its own code) is reported beside them.
 */
export function toIssues(location: IssueLocation, errors: readonly ValidatorError[] | null | undefined): ValidationIssue[] {
  return (errors ?? [])
    .filter((error) => error.keyword !== 'if')
    .map((error) => {
      const code = ownErrorCode(error);
      return { location, path: issuePath(error), message: error.message ?? `must pass "${error.keyword}"`, keyword: error.keyword, ...(code === undefined ? {} : { error_code: code }) };
    });
}

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
export function validationErrorBody(answer: ErrorAnswer, issues: readonly ValidationIssue[]): { error_code: string; message: string; errors: ValidationIssue[] } {
  const described = issues.map((issue) => `${issue.location} ${issue.path || '(whole body)'} ${issue.message}`).join('; ');
  return { error_code: answer.error_code, message: `The request breaks ${issues.length} rule${issues.length === 1 ? '' : 's'}: ${described}.`, errors: [...issues] };
}
