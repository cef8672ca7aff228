// @ts-check
// Project lint rules for the payments contract. Redocly loads plugins as plain JavaScript, so this file
// is JavaScript with JSDoc types, checked by `tsc` (checkJs).

/** @typedef {Record<string, unknown>} Node */
/** @typedef {{ resolve: (node: unknown) => { node: unknown }, report: (problem: { message: string, location?: unknown }) => void, location: { child: (key: string | number) => unknown } }} Ctx */

const COMMON_ERRORS = /** @type {const} */ ([
  ['401', 'INVALID_API_KEY'],
  ['403', 'REQUEST_FORBIDDEN_ERROR'],
  ['500', 'SERVER_ERROR'],
]);

/** @param {unknown} value @returns {value is Node} */
function isNode(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @param {Ctx} ctx @param {unknown} node @returns {Node | undefined} */
function resolved(ctx, node) {
  const target = ctx.resolve(node).node;
  return isNode(target) ? target : undefined;
}

/**
 * The error codes a response schema allows: the `enum` of `error_code` found in the schema itself or
 * in any `allOf` member, following references.
 * @param {Ctx} ctx @param {unknown} schemaRef @returns {string[] | undefined}
 */
function errorCodeEnum(ctx, schemaRef) {
  const schema = resolved(ctx, schemaRef);
  if (!schema) return undefined;
  const properties = resolved(ctx, schema.properties);
  const errorCode = properties && resolved(ctx, properties.error_code);
  if (errorCode && Array.isArray(errorCode.enum)) return errorCode.enum.map(String);
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) {
      const codes = errorCodeEnum(ctx, member);
      if (codes) return codes;
    }
  }
  return undefined;
}

/** @param {Ctx} ctx @param {unknown} schemaRef @returns {boolean} */
function extendsErrorSchema(ctx, schemaRef) {
  const schema = resolved(ctx, schemaRef);
  if (!schema) return false;
  if (schema.title === 'Error') return true;
  return Array.isArray(schema.allOf) && schema.allOf.some((member) => extendsErrorSchema(ctx, member));
}

/** @param {Ctx} ctx @param {unknown} responseRef @returns {Node | undefined} */
function jsonMediaType(ctx, responseRef) {
  const response = resolved(ctx, responseRef);
  const content = response && resolved(ctx, response.content);
  return content ? resolved(ctx, content['application/json']) : undefined;
}

/** Every operation answers 401, 403 and 500 with the error schema and the common code. */
function OperationCommonErrors() {
  return {
    Paths: {
      Operation: {
        /** @param {Node} operation @param {Ctx} ctx */
        enter(operation, ctx) {
          const responses = resolved(ctx, operation.responses) ?? {};
          for (const [status, code] of COMMON_ERRORS) {
            const media = jsonMediaType(ctx, responses[status]);
            if (!media) {
              ctx.report({ message: `Operation must document a JSON ${status} response.`, location: ctx.location.child('responses') });
              continue;
            }
            if (!extendsErrorSchema(ctx, media.schema)) {
              ctx.report({ message: `The ${status} response must use the Error schema.`, location: ctx.location.child('responses') });
            }
            if (!(errorCodeEnum(ctx, media.schema) ?? []).includes(code)) {
              ctx.report({ message: `The ${status} response must allow error_code ${code}.`, location: ctx.location.child('responses') });
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
        for (const [status, response] of Object.entries(responses)) {
          if (!/^[45]\d\d$/.test(status)) continue;
          const media = jsonMediaType(ctx, response);
          const location = ctx.location.child(status);
          if (!media) {
            ctx.report({ message: `Error response ${status} must have application/json content.`, location });
            continue;
          }
          const codes = errorCodeEnum(ctx, media.schema);
          if (!codes || codes.length === 0) {
            ctx.report({ message: `Error response ${status} must narrow error_code with an enum.`, location });
            continue;
          }
          const examples = resolved(ctx, media.examples) ?? {};
          const exampleKeys = Object.keys(examples);
          for (const code of codes.filter((c) => !exampleKeys.includes(c))) {
            ctx.report({ message: `Error code ${code} (status ${status}) has no example named after it.`, location });
          }
          for (const key of exampleKeys) {
            const example = resolved(ctx, examples[key]);
            const value = example && resolved(ctx, example.value);
            if (!codes.includes(key)) {
              ctx.report({ message: `Example ${key} (status ${status}) is not one of the response's error codes.`, location });
            } else if (!value || value.error_code !== key) {
              ctx.report({ message: `Example ${key} (status ${status}) must have error_code ${key}.`, location });
            }
          }
        }
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
          const body = resolved(ctx, operation.requestBody);
          const content = body && resolved(ctx, body.content);
          const media = content && resolved(ctx, content['application/json']);
          const examples = media && resolved(ctx, media.examples);
          if (!examples || Object.keys(examples).length === 0) {
            ctx.report({ message: 'Webhook must have at least one named example of its JSON body.', location: ctx.location.child('requestBody') });
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
      },
    },
  };
}
