// @ts-check
// Project lint rules for the payments contract. Redocly loads plugins as plain JavaScript, so this file
// is JavaScript with JSDoc types, checked by `tsc` (checkJs).

/** @typedef {Record<string, unknown>} Node */
/** @typedef {{ node: unknown, location?: { source: { absoluteRef: string } } }} Resolved */
/** @typedef {{ resolve: (node: unknown, from?: string) => Resolved, report: (problem: { message: string, location?: unknown }) => void, location: { source: { absoluteRef: string }, child: (key: string | number) => unknown } }} Ctx */
/**
 * A node together with the file it was read from: references inside it resolve relative to that file,
 * not to the file the visitor is in.
 * @typedef {{ node: Node, from: string }} Located
 */

const COMMON_ERRORS = /** @type {const} */ ([
  ['401', 'INVALID_API_KEY'],
  ['403', 'REQUEST_FORBIDDEN_ERROR'],
  ['429', 'RATE_LIMIT_EXCEEDED'],
  ['500', 'SERVER_ERROR'],
  ['503', 'SERVICE_UNAVAILABLE'],
]);

/** @param {unknown} value @returns {value is Node} */
function isNode(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @param {Ctx} ctx @param {unknown} node @param {string} from @returns {Located | undefined} */
function resolved(ctx, node, from) {
  const result = ctx.resolve(node, from);
  if (!isNode(result.node)) return undefined;
  // Only a followed reference moves us to another file; an inline node stays in the file it was read from.
  const isReference = isNode(node) && typeof node.$ref === 'string';
  return { node: result.node, from: isReference ? (result.location?.source.absoluteRef ?? from) : from };
}

/** @param {Ctx} ctx @param {Located | undefined} parent @param {string} key @returns {Located | undefined} */
function child(ctx, parent, key) {
  return parent ? resolved(ctx, parent.node[key], parent.from) : undefined;
}

/** @param {Located} schema @returns {unknown[]} */
function allOfMembers(schema) {
  return Array.isArray(schema.node.allOf) ? schema.node.allOf : [];
}

/**
 * The error codes a response schema allows: the `enum` of `error_code` found in the schema itself or
 * in any `allOf` member, following references.
 * @param {Ctx} ctx @param {Located | undefined} schema @returns {string[] | undefined}
 */
function errorCodeEnum(ctx, schema) {
  if (!schema) return undefined;
  const errorCode = child(ctx, child(ctx, schema, 'properties'), 'error_code');
  if (errorCode && Array.isArray(errorCode.node.enum)) return errorCode.node.enum.map(String);
  for (const member of allOfMembers(schema)) {
    const codes = errorCodeEnum(ctx, resolved(ctx, member, schema.from));
    if (codes) return codes;
  }
  return undefined;
}

/** @param {Ctx} ctx @param {Located | undefined} schema @returns {boolean} */
function extendsErrorSchema(ctx, schema) {
  if (!schema) return false;
  if (schema.node.title === 'Error') return true;
  return allOfMembers(schema).some((member) => extendsErrorSchema(ctx, resolved(ctx, member, schema.from)));
}

/** @param {Ctx} ctx @param {unknown} responseRef @param {string} from @returns {Located | undefined} */
function jsonMediaType(ctx, responseRef, from) {
  return child(ctx, child(ctx, resolved(ctx, responseRef, from), 'content'), 'application/json');
}

/** Every operation answers 401, 403, 429, 500 and 503 with the error schema and the common code. */
function OperationCommonErrors() {
  return {
    Paths: {
      Operation: {
        /** @param {Node} operation @param {Ctx} ctx */
        enter(operation, ctx) {
          const here = ctx.location.source.absoluteRef;
          const responses = resolved(ctx, operation.responses, here);
          for (const [status, code] of COMMON_ERRORS) {
            const media = responses && jsonMediaType(ctx, responses.node[status], responses.from);
            if (!media) {
              ctx.report({
                message: `Operation must document a JSON ${status} response.`,
                location: ctx.location.child('responses'),
              });
              continue;
            }
            const schema = child(ctx, media, 'schema');
            if (!extendsErrorSchema(ctx, schema)) {
              ctx.report({
                message: `The ${status} response must use the Error schema.`,
                location: ctx.location.child('responses'),
              });
            }
            if (!(errorCodeEnum(ctx, schema) ?? []).includes(code)) {
              ctx.report({
                message: `The ${status} response must allow error_code ${code}.`,
                location: ctx.location.child('responses'),
              });
            }
          }
        },
      },
    },
  };
}

/** Every error response narrows error_code and has exactly one example per code, keyed by the code. */
function ErrorCodeExamples() {
  return {
    Responses: {
      /** @param {Node} responses @param {Ctx} ctx */
      enter(responses, ctx) {
        const here = ctx.location.source.absoluteRef;
        for (const [status, response] of Object.entries(responses)) {
          if (!/^[45]\d\d$/.test(status)) continue;
          const media = jsonMediaType(ctx, response, here);
          const location = ctx.location.child(status);
          if (!media) {
            ctx.report({ message: `Error response ${status} must have application/json content.`, location });
            continue;
          }
          const codes = errorCodeEnum(ctx, child(ctx, media, 'schema'));
          if (!codes || codes.length === 0) {
            ctx.report({ message: `Error response ${status} must narrow error_code with an enum.`, location });
            continue;
          }
          const examples = child(ctx, media, 'examples');
          const exampleKeys = Object.keys(examples?.node ?? {});
          for (const code of codes.filter((c) => !exampleKeys.includes(c))) {
            ctx.report({ message: `Error code ${code} (status ${status}) has no example named after it.`, location });
          }
          for (const key of exampleKeys) {
            const value = child(ctx, child(ctx, examples, key), 'value')?.node;
            if (!codes.includes(key)) {
              ctx.report({
                message: `Example ${key} (status ${status}) is not one of the response's error codes.`,
                location,
              });
            } else if (!value || value.error_code !== key) {
              ctx.report({ message: `Example ${key} (status ${status}) must have error_code ${key}.`, location });
            }
          }
        }
      },
    },
  };
}

/**
 * Every operation names, in `x-rate-limit`, a rate-limit group the root's `x-rate-limits` defines (the groups a
 * server counts requests in and a client reads the limits from).
 */
function OperationRateLimitGroup() {
  /** @type {Set<string>} */
  let groups = new Set();
  return {
    Root: {
      /** @param {Node} root */
      enter(root) {
        const limits = root['x-rate-limits'];
        groups = new Set(isNode(limits) ? Object.keys(limits) : []);
      },
    },
    Paths: {
      Operation: {
        /** @param {Node} operation @param {Ctx} ctx */
        enter(operation, ctx) {
          const group = operation['x-rate-limit'];
          if (typeof group !== 'string') {
            ctx.report({
              message: 'Operation must name its rate-limit group in x-rate-limit.',
              location: ctx.location,
            });
          } else if (!groups.has(group)) {
            ctx.report({
              message: `x-rate-limit names ${group}, which x-rate-limits at the root does not define (${[...groups].join(', ') || 'none'}).`,
              location: ctx.location.child('x-rate-limit'),
            });
          }
        },
      },
    },
  };
}

/** Every webhook has an operationId and at least one example of its body. */
function WebhookOperationIdAndExample() {
  return {
    WebhooksMap: {
      Operation: {
        /** @param {Node} operation @param {Ctx} ctx */
        enter(operation, ctx) {
          if (typeof operation.operationId !== 'string' || operation.operationId === '') {
            ctx.report({ message: 'Webhook operation must have an operationId.', location: ctx.location });
          }
          const body = resolved(ctx, operation.requestBody, ctx.location.source.absoluteRef);
          const examples = child(ctx, child(ctx, child(ctx, body, 'content'), 'application/json'), 'examples');
          if (!examples || Object.keys(examples.node).length === 0) {
            ctx.report({
              message: 'Webhook must have at least one named example of its JSON body.',
              location: ctx.location.child('requestBody'),
            });
          }
        },
      },
    },
  };
}

export default function paymentsPlugin() {
  return {
    id: 'payments',
    rules: {
      oas3: {
        'operation-common-errors': OperationCommonErrors,
        'error-code-examples': ErrorCodeExamples,
        'webhook-operation-id-and-example': WebhookOperationIdAndExample,
        'operation-rate-limit-group': OperationRateLimitGroup,
      },
    },
  };
}
