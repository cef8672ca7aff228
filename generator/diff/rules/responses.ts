// Responses of operations: statuses, their JSON bodies (compared with the response flow: a widened type
// or enum breaks clients, a field made required obliges servers) and the error codes documented per
// status. An error code added to a status breaks a client's exhaustive switch over the generated union
// of codes even though a generic tool only sees "an enum value was added to a response".
import { errorCodesOf } from '@payments-contract/model';
import type { JsonObject } from '@payments-contract/model/types';
import { child, entriesOf, member, resolve } from '../json.js';
import { compareSchemas } from '../schema.js';
import type { Finding, Located } from '../types.js';
import { explicit, findings } from '../verdicts.js';
import { matchedOperations } from './operations.js';

const jsonSchemaOf = (response: Located): Located =>
  member(resolve(member(resolve(member(resolve(response), 'content')), 'application/json')), 'schema');

function compareErrorCodes(subject: string, status: string, old: Located, neu: Located): Finding[] {
  const before = errorCodesOf(old.doc, old.node ?? null);
  const after = errorCodesOf(neu.doc, neu.node ?? null);
  const added = after.filter((code) => !before.includes(code));
  const removed = before.filter((code) => !after.includes(code));
  const out: Finding[] = [];
  for (const code of added) {
    out.push(
      ...findings(
        {
          rule: 'response-error-code-added',
          family: 'responses',
          old: old.pointer,
          new: neu.pointer,
          change: `${subject}: ${status} may now answer error_code ${code}.`,
        },
        explicit(
          ['client', 'breaking', 'an exhaustive switch over the generated union of codes does not handle it'],
          ['server', 'potentially-breaking', 'a server must answer it where its rule or trigger says'],
        ),
      ),
    );
  }
  for (const code of removed) {
    out.push(
      ...findings(
        {
          rule: 'response-error-code-removed',
          family: 'responses',
          old: old.pointer,
          new: neu.pointer,
          change: `${subject}: ${status} no longer answers error_code ${code}.`,
        },
        explicit(
          ['client', 'non-breaking', 'a client handling it keeps working; the case is dead code'],
          ['server', 'potentially-breaking', 'a server that still answers it departs from the contract'],
        ),
      ),
    );
  }
  return out;
}

export function compareResponses(old: JsonObject, neu: JsonObject): Finding[] {
  const out: Finding[] = [];
  for (const [before, after] of matchedOperations(old, neu)) {
    const statusesOld = new Map(entriesOf(member(before.operation, 'responses')));
    const statusesNew = new Map(entriesOf(member(after.operation, 'responses')));
    for (const [status, response] of statusesOld) {
      const match = statusesNew.get(status);
      if (!match) {
        out.push(
          ...findings(
            {
              rule: 'response-status-removed',
              family: 'responses',
              old: response.pointer,
              new: child(after.operation.pointer, 'responses'),
              change: `${before.name}: the ${status} response was removed.`,
            },
            explicit(
              ['client', 'non-breaking', 'a client handling it keeps working'],
              ['server', 'potentially-breaking', 'a server that still answers it departs from the contract'],
            ),
          ),
        );
        continue;
      }
      const isError = /^[45]/.test(status) || status === 'default';
      const label = `${before.name} ${status} response`;
      compareSchemas(
        { flow: 'response', family: 'responses', subject: label, errorCodesElsewhere: isError, out },
        jsonSchemaOf(response),
        jsonSchemaOf(match),
      );
      if (isError)
        out.push(
          ...compareErrorCodes(before.name, status, resolve(jsonSchemaOf(response)), resolve(jsonSchemaOf(match))),
        );
    }
    for (const [status, response] of statusesNew) {
      if (statusesOld.has(status)) continue;
      out.push(
        ...findings(
          {
            rule: 'response-status-added',
            family: 'responses',
            old: child(before.operation.pointer, 'responses'),
            new: response.pointer,
            change: `${before.name} may now answer ${status}.`,
          },
          explicit(
            ['client', 'breaking', 'a client that handles every documented status does not handle it'],
            ['server', 'potentially-breaking', 'a server must answer it where the contract says'],
          ),
        ),
      );
    }
  }
  return out;
}
