// Fastify 5 serving the three operations: authentication in an onRequest hook (before the body is read, as
// the generated router does), validation by Fastify's schema pipeline with an ajv 2020-12 compiler on the
// contract's dereferenced schemas, and the contract's error answers from its error handler.
import type { Server } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { IssueLocation } from '@payments-contract/server/runtime/validation-errors';
import { benchAjv, benchSchemas } from '../peer-schemas.js';
import {
  authenticate,
  handlers,
  MALFORMED_BODY,
  UNAUTHORIZED_BODY,
  UNAUTHORIZED_HEADERS,
  validationFailure,
  type CreateDisbursement,
  type Principal,
} from '../scenario.js';

/** Fastify's name for each part of a request, as the contract's `ValidationIssue.location` names it. */
const LOCATIONS: Record<string, IssueLocation> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};
const OPERATIONS: Record<string, 'getBalance' | 'getFixedVirtualAccount' | 'createDisbursement'> = {
  '/balance': 'getBalance',
  '/callback_virtual_accounts/:id': 'getFixedVirtualAccount',
  '/disbursements': 'createDisbursement',
};

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export async function createFastifyServer(): Promise<Server> {
  const schemas = benchSchemas();
  const strict = benchAjv(false);
  const coercing = benchAjv(true);
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
  app.decorateRequest('principal', null);
  app.addHook('onRequest', (request, reply, done) => {
    request.principal = authenticate(request.headers.authorization);
    if (request.principal === null) reply.code(401).headers(UNAUTHORIZED_HEADERS).send(UNAUTHORIZED_BODY);
    else done();
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const operationId = OPERATIONS[request.routeOptions.url ?? ''];
    if (error.validation && error.validationContext && operationId) {
      const failure = validationFailure(
        operationId,
        LOCATIONS[error.validationContext] ?? 'body',
        error.validation as never,
      );
      return reply.code(failure.status).send(failure.body);
    }
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return reply.code(400).send(MALFORMED_BODY);
    return reply.code(500).send({ error_code: 'SERVER_ERROR', message: 'The service could not complete the request.' });
  });
  app.get(
    '/balance',
    { schema: { querystring: schemas.balanceQuery } },
    (request) => handlers.getBalance(request.query as { account_type?: string }).body,
  );
  app.get(
    '/callback_virtual_accounts/:id',
    { schema: { params: schemas.fixedVirtualAccountPath } },
    (request, reply) => {
      const answer = handlers.getFixedVirtualAccount((request.params as { id: string }).id);
      return reply.code(answer.status).send(answer.body);
    },
  );
  app.post(
    '/disbursements',
    { schema: { headers: schemas.disbursementHeader, body: schemas.disbursementBody } },
    (request) => handlers.createDisbursement(request.body as CreateDisbursement).body,
  );
  await app.ready();
  return app.server;
}
