// Check 1, response conformance, applied to every response any check sees: the status is documented, the
// body is JSON and valid against that status's schema, an error's code is documented for that status.
// Values that match only a known variant recorded in the contract (`x-known-variants`) are warnings.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { isObject } from '@payments-contract/contract/model';
import type { OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from './contract.js';
import type { Exchange, HttpClient } from './http.js';
import type { Finding } from './types.js';

const EXCERPT = 300;

export function excerpt(exchange: Exchange): string {
  const text = exchange.bodyText.replace(/\s+/g, ' ');
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
}

export function finding(http: HttpClient, exchange: Exchange, message: string, extra: Partial<Finding> = {}): Finding {
  return {
    severity: 'failure',
    message,
    curl: http.curl(exchange),
    status: exchange.status,
    bodyExcerpt: excerpt(exchange),
    ...extra,
  };
}

function isKnownVariant(contract: Contract, error: ErrorObject): boolean {
  const variants = error.parentSchema?.['x-known-variants'];
  if (!Array.isArray(variants)) return false;
  return variants.some(
    (variant) =>
      typeof variant === 'object' &&
      variant !== null &&
      contract.validate((variant as { schema: never }).schema, error.data).length === 0,
  );
}

/** Findings for one exchange judged against the operation's documented responses. */
export function responseFindings(
  contract: Contract,
  http: HttpClient,
  operation: OperationModel,
  exchange: Exchange,
  strict: boolean,
): Finding[] {
  if (exchange.failure && exchange.failure.kind !== 'not_json') {
    return [finding(http, exchange, `${operation.operationId}: ${exchange.failure.message}`)];
  }
  const findings: Finding[] = [];
  const response = contract.response(operation, exchange.status);
  if (!response) {
    const documented = operation.responses.map((r) => r.status).join(', ');
    return [
      finding(
        http,
        exchange,
        `status ${exchange.status} is not documented for ${operation.operationId} (documented: ${documented})`,
      ),
    ];
  }
  findings.push(...headerFindings(contract, http, operation, exchange));
  if (response.schema === undefined) return findings;
  const contentType = exchange.headers['content-type'] ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(contentType)) {
    findings.push(finding(http, exchange, `content type is "${contentType || 'missing'}", not application/json`));
  }
  if (exchange.failure?.kind === 'not_json') {
    findings.push(finding(http, exchange, `the ${exchange.status} body is not JSON`));
    return findings;
  }
  for (const error of contract.validate(response.schema, exchange.json)) {
    if (error.keyword === 'if') continue;
    const where = `${error.instancePath || '(body)'} ${error.message ?? error.keyword}`;
    findings.push(
      isKnownVariant(contract, error)
        ? {
            ...finding(http, exchange, `${where}: matches a known variant recorded in the contract`, {
              schemaPath: error.schemaPath,
            }),
            severity: 'warning',
          }
        : finding(http, exchange, `body does not match the ${exchange.status} schema: ${where}`, {
            schemaPath: error.schemaPath,
          }),
    );
  }
  if (exchange.status >= 400) {
    const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
    if (typeof code === 'string' && response.errorCodes.length > 0 && !response.errorCodes.includes(code)) {
      findings.push(
        finding(
          http,
          exchange,
          `error_code ${code} is not documented for ${operation.operationId} at ${exchange.status} (documented: ${response.errorCodes.join(', ')})`,
        ),
      );
    }
  }
  if (strict && findings.length === 0) {
    for (const error of contract
      .validateClosed(response.schema, exchange.json)
      .filter((e) => e.keyword === 'unevaluatedProperties')) {
      const name = String((error.params as { unevaluatedProperty?: unknown }).unevaluatedProperty);
      findings.push(
        finding(http, exchange, `undocumented field ${error.instancePath}/${name} (--strict)`, {
          schemaPath: error.schemaPath,
        }),
      );
    }
  }
  return findings;
}

/** A required header missing, or a declared one whose value breaks its schema (an integer field, say). */
function headerFindings(
  contract: Contract,
  http: HttpClient,
  operation: OperationModel,
  exchange: Exchange,
): Finding[] {
  const findings: Finding[] = [];
  const declared = operation.responses.find((response) => response.status === exchange.status)?.headerFields ?? [];
  for (const { name: written, required, schema } of declared) {
    const name = written.toLowerCase();
    const value = exchange.headers[name];
    if (value === undefined) {
      if (required)
        findings.push(
          finding(http, exchange, `the ${exchange.status} answer lacks the ${name} header the contract requires`),
        );
      continue;
    }
    // A header whose schema admits no value is one the contract says is never sent (a CORS header on an API
    // for servers, which would let a web page read answers made with a secret key): sent anyway, it fails.
    if (isObject(schema) && isObject(schema.not) && Object.keys(schema.not).length === 0) {
      findings.push(
        finding(http, exchange, `the answer carries the ${name} header, which the contract says is never sent`),
      );
      continue;
    }
    const type = isObject(schema) ? schema.type : undefined;
    // Header values are text: a number-typed header is judged as the number it spells.
    const typed =
      (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
    if (schema === undefined) continue;
    for (const error of contract.validate(schema, typed))
      findings.push(
        finding(http, exchange, `header ${name}: ${JSON.stringify(value)} ${error.message ?? error.keyword}`),
      );
  }
  return findings;
}

export interface Expected {
  /** Acceptable statuses. */
  status: number | number[];
  /** Acceptable error codes (any documented code at the status when omitted). */
  errorCode?: string | string[];
}

/** Findings when the exchange is not the answer the contract prescribes for this request. */
export function expectationFindings(http: HttpClient, exchange: Exchange, expected: Expected, what: string): Finding[] {
  if (exchange.status === 0) return [];
  const statuses = Array.isArray(expected.status) ? expected.status : [expected.status];
  if (!statuses.includes(exchange.status)) {
    return [finding(http, exchange, `${what}: expected status ${statuses.join(' or ')}, got ${exchange.status}`)];
  }
  if (expected.errorCode !== undefined) {
    const codes = Array.isArray(expected.errorCode) ? expected.errorCode : [expected.errorCode];
    const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
    if (typeof code !== 'string' || !codes.includes(code)) {
      return [
        finding(
          http,
          exchange,
          `${what}: expected error_code ${codes.join(' or ')}, got ${typeof code === 'string' ? code : 'none'}`,
        ),
      ];
    }
  }
  if (exchange.status >= 500) return [finding(http, exchange, `${what}: server error`)];
  return [];
}
