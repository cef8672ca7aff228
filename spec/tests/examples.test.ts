// Every example in the contract (request bodies, parameters, responses, response headers, webhook bodies)
// is valid against the schema it illustrates: mocks serve them and partners copy them.
import { describe, expect, it } from 'vitest';
import {
  createDocumentAjv,
  deref,
  isObject,
  listOperations,
  listWebhooks,
  loadBundled,
  type Json,
  type JsonObject,
} from './document.js';

interface ExampleCase {
  name: string;
  schema: Json;
  value: Json;
}

const doc = loadBundled();
const { compileSchema } = createDocumentAjv(doc);

function namedExamples(doc: JsonObject, holder: JsonObject): [string, Json][] {
  const found: [string, Json][] = [];
  if ('example' in holder) found.push(['example', holder.example ?? null]);
  const examples = deref(doc, holder.examples);
  if (isObject(examples)) {
    for (const [name, example] of Object.entries(examples)) {
      const resolved = deref(doc, example);
      if (isObject(resolved) && 'value' in resolved) found.push([name, resolved.value ?? null]);
    }
  }
  return found;
}

function mediaCases(label: string, content: Json | undefined): ExampleCase[] {
  const cases: ExampleCase[] = [];
  if (!isObject(content)) return cases;
  for (const [mediaType, media] of Object.entries(content)) {
    if (!isObject(media) || media.schema === undefined) continue;
    for (const [name, value] of namedExamples(doc, media)) {
      cases.push({ name: `${label} ${mediaType} example "${name}"`, schema: media.schema, value });
    }
  }
  return cases;
}

function collectCases(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const entry of [...listOperations(doc), ...listWebhooks(doc)]) {
    const label = `${entry.operationId}`;
    const parameters = entry.operation.parameters;
    for (const parameter of Array.isArray(parameters) ? parameters : []) {
      const resolved = deref(doc, parameter);
      if (!isObject(resolved) || resolved.schema === undefined) continue;
      for (const [name, value] of namedExamples(doc, resolved)) {
        cases.push({
          name: `${label} parameter ${String(resolved.name)} example "${name}"`,
          schema: resolved.schema,
          value,
        });
      }
    }
    const body = deref(doc, entry.operation.requestBody);
    if (isObject(body)) cases.push(...mediaCases(`${label} request body`, body.content));
    const responses = deref(doc, entry.operation.responses);
    for (const [status, response] of Object.entries(isObject(responses) ? responses : {})) {
      const resolved = deref(doc, response);
      if (!isObject(resolved)) continue;
      cases.push(...mediaCases(`${label} ${status}`, resolved.content));
      const headers = deref(doc, resolved.headers);
      for (const [headerName, header] of Object.entries(isObject(headers) ? headers : {})) {
        const headerObject = deref(doc, header);
        if (!isObject(headerObject) || headerObject.schema === undefined) continue;
        for (const [name, value] of namedExamples(doc, headerObject)) {
          cases.push({
            name: `${label} ${status} header ${headerName} example "${name}"`,
            schema: headerObject.schema,
            value,
          });
        }
      }
    }
  }
  return cases;
}

const cases = collectCases();

describe('examples', () => {
  it('exist for every operation and webhook', () => {
    const withExamples = new Set(cases.map((c) => c.name.split(' ')[0]));
    const all = [...listOperations(doc), ...listWebhooks(doc)].map((e) => e.operationId);
    expect(all.filter((id) => !withExamples.has(id))).toEqual([]);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s is valid against its schema', (_name, example) => {
    const validate = compileSchema(example.schema);
    const valid = validate(example.value);
    expect(valid ? [] : validate.errors).toEqual([]);
  });
});
