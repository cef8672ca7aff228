// The ceiling: node:http with the three operations written out by hand, doing the same work (Basic
// authentication, the generated validators, the same handlers and error answers) and nothing general: no
// routing table, no body limits or media types, no protocol-error answers. What any router costs is its
// distance from this.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { operationValidators } from '@payments-contract/server/validators';
import {
  authenticate,
  handlers,
  MALFORMED_BODY,
  UNAUTHORIZED_BODY,
  UNAUTHORIZED_HEADERS,
  validationFailure,
  type CreateDisbursement,
} from '../scenario.js';

function send(out: ServerResponse, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  const text = JSON.stringify(body);
  out.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  out.end(text);
}

function readText(message: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    message.on('error', reject);
  });
}

const FVA_PREFIX = '/callback_virtual_accounts/';

async function serve(message: IncomingMessage, out: ServerResponse): Promise<void> {
  if (authenticate(message.headers.authorization) === null)
    return send(out, 401, UNAUTHORIZED_BODY, UNAUTHORIZED_HEADERS);
  const url = message.url ?? '/';
  const question = url.indexOf('?');
  const path = question < 0 ? url : url.slice(0, question);
  if (message.method === 'GET' && path === '/balance') {
    const query = Object.fromEntries(new URLSearchParams(question < 0 ? '' : url.slice(question + 1)));
    const validate = operationValidators.getBalance.query;
    if (!validate(query)) {
      const failure = validationFailure('getBalance', 'query', validate.errors);
      return send(out, failure.status, failure.body);
    }
    const answer = handlers.getBalance(query);
    return send(out, answer.status, answer.body);
  }
  if (message.method === 'GET' && path.startsWith(FVA_PREFIX)) {
    const params = { id: decodeURIComponent(path.slice(FVA_PREFIX.length)) };
    const validate = operationValidators.getFixedVirtualAccount.path;
    if (!validate(params)) {
      const failure = validationFailure('getFixedVirtualAccount', 'path', validate.errors);
      return send(out, failure.status, failure.body);
    }
    const answer = handlers.getFixedVirtualAccount(params.id);
    return send(out, answer.status, answer.body);
  }
  if (message.method === 'POST' && path === '/disbursements') {
    const key = message.headers['x-idempotency-key'];
    const header = key === undefined ? {} : { 'x-idempotency-key': key };
    const validateHeader = operationValidators.createDisbursement.header;
    if (!validateHeader(header)) {
      const failure = validationFailure('createDisbursement', 'header', validateHeader.errors);
      return send(out, failure.status, failure.body);
    }
    let body: unknown;
    try {
      body = JSON.parse(await readText(message));
    } catch {
      return send(out, 400, MALFORMED_BODY);
    }
    const validateBody = operationValidators.createDisbursement.body;
    if (!validateBody(body)) {
      const failure = validationFailure('createDisbursement', 'body', validateBody.errors);
      return send(out, failure.status, failure.body);
    }
    const answer = handlers.createDisbursement(body as CreateDisbursement);
    return send(out, answer.status, answer.body);
  }
  send(out, 404, { error_code: 'NOT_FOUND', message: 'No operation has this path.' });
}

export function createBareServer(): Server {
  return createServer((message, out) => {
    serve(message, out).catch(() =>
      send(out, 500, { error_code: 'SERVER_ERROR', message: 'The server failed to answer.' }),
    );
  });
}
