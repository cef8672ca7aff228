// Hono on @hono/node-server serving the three operations: authentication as middleware, then the same ajv
// validation (2020-12, the contract's dereferenced schemas) as middleware per route, then the handler.
import type { Server } from 'node:http';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { createAdaptorServer } from '@hono/node-server';
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
} from '../scenario.js';

type OperationId = 'getBalance' | 'getFixedVirtualAccount' | 'createDisbursement';
type Part = {
  location: IssueLocation;
  read: (c: Context) => unknown | Promise<unknown>;
  validate: ReturnType<ReturnType<typeof benchAjv>['compile']>;
};
type Env = { Variables: { valid: Partial<Record<IssueLocation, unknown>> } };

class MalformedBody extends Error {}

/** Validates each part in turn, collecting the contract's issues from all of them, as the generated router does. */
function validated(operationId: OperationId, parts: readonly Part[]): MiddlewareHandler<Env> {
  return async (c, next) => {
    const valid: Partial<Record<IssueLocation, unknown>> = {};
    for (const part of parts) {
      let value: unknown;
      try {
        value = await part.read(c);
      } catch (error) {
        if (error instanceof MalformedBody) return c.json(MALFORMED_BODY, 400);
        throw error;
      }
      if (!part.validate(value)) {
        const failure = validationFailure(operationId, part.location, part.validate.errors);
        return c.json(failure.body, failure.status as 400);
      }
      valid[part.location] = value;
    }
    c.set('valid', valid);
    await next();
  };
}

async function jsonBody(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new MalformedBody();
  }
}

export function createHonoServer(): Server {
  const schemas = benchSchemas();
  const strict = benchAjv(false);
  const coercing = benchAjv(true);
  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    if (authenticate(c.req.header('authorization')) === null)
      return c.json(UNAUTHORIZED_BODY, 401, UNAUTHORIZED_HEADERS);
    await next();
  });
  app.get(
    '/balance',
    validated('getBalance', [
      { location: 'query', read: (c) => c.req.query(), validate: coercing.compile(schemas.balanceQuery) },
    ]),
    (c) => c.json(handlers.getBalance(c.get('valid').query as { account_type?: string }).body),
  );
  app.get(
    '/callback_virtual_accounts/:id',
    validated('getFixedVirtualAccount', [
      { location: 'path', read: (c) => c.req.param(), validate: coercing.compile(schemas.fixedVirtualAccountPath) },
    ]),
    (c) => {
      const answer = handlers.getFixedVirtualAccount((c.get('valid').path as { id: string }).id);
      return c.json(answer.body, answer.status);
    },
  );
  app.post(
    '/disbursements',
    validated('createDisbursement', [
      { location: 'header', read: (c) => c.req.header(), validate: coercing.compile(schemas.disbursementHeader) },
      { location: 'body', read: jsonBody, validate: strict.compile(schemas.disbursementBody) },
    ]),
    (c) => c.json(handlers.createDisbursement(c.get('valid').body as CreateDisbursement).body),
  );
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}
