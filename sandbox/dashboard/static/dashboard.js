// @ts-check
// The sandbox dashboard: a page over the control API and the service contract, nothing else. What it shows
// and offers is read from the two contracts the sandbox serves (/sandbox/openapi.json, /openapi.json): the
// resource kinds, the simulations each state allows (x-simulates and the SANDBOX_STATE_CONFLICT triggers
// against the service's state machines), the settings schema, the clock extension. New settings or
// simulations therefore show up without a change here. Everything rendered from data goes in as text
// (textContent, attribute values), never as HTML: request bodies and callback payloads are anyone's input.

/** @typedef {null | boolean | number | string | JsonArray | JsonObject} Json */
/** @typedef {Json[]} JsonArray */
/** @typedef {{ [key: string]: Json }} JsonObject */
/** @typedef {{ status: number, ok: boolean, body: Json }} Answer */
/** @typedef {{ method: string, path: string, operation: JsonObject }} Operation */

const KEY_STORAGE = 'payments-sandbox-key';
/** How often the tab on screen is read again (events and requests change by themselves). */
const POLL_MS = 2000;

/** @type {string | null} */
let secretKey = null;
/** @type {{ control: JsonObject, service: JsonObject } | null} */
let contracts = null;
let activeTab = 'resources';

// ---- small helpers -------------------------------------------------------------------------------

/**
 * An element with attributes (strings set as attributes, functions as listeners) and children (strings as
 * text nodes).
 * @param {string} tag
 * @param {{ [name: string]: string | number | boolean | null | undefined | ((event: Event) => void) }} [attributes]
 * @param {...(Node | string | number | null | undefined | false | (Node | string)[])} children
 * @returns {HTMLElement}
 */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'number' ? String(child) : child);
  }
  return element;
}

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element;
}

/** @param {unknown} value @returns {value is JsonObject} */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** @param {Json | undefined} value @returns {JsonObject} */
const objectOr = (value) => (isObject(value) ? value : {});

/** @param {Json | undefined} value @returns {Json[]} */
const arrayOr = (value) => (Array.isArray(value) ? value : []);

/** @param {Json | undefined} value @returns {string} */
const text = (value) =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** "failDisbursement" → "Fail disbursement". @param {string} operationId */
function humanized(operationId) {
  const words = operationId.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** @param {string} message @param {'info' | 'error'} [kind] */
function notify(message, kind = 'info') {
  const notice = byId('notice');
  notice.textContent = message;
  notice.className = kind === 'error' ? 'error' : '';
}

/** A short account of an error answer: its code and message, and each field problem. @param {Answer} answer */
function describeError(answer) {
  const body = objectOr(answer.body);
  const issues = arrayOr(body.errors).map((issue) =>
    `${text(objectOr(issue).path)} ${text(objectOr(issue).message)}`.trim(),
  );
  return [`${answer.status} ${text(body.error_code)}`.trim(), text(body.message), ...issues]
    .filter(Boolean)
    .join(' — ');
}

// ---- the HTTP API --------------------------------------------------------------------------------

/**
 * A request to the sandbox with the key as Basic authentication; the answer's body parsed when it is JSON.
 * @param {string} method @param {string} path @param {Json} [body] @returns {Promise<Answer>}
 */
async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (secretKey !== null) headers.authorization = `Basic ${btoa(`${secretKey}:`)}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  // credentials 'omit': the key goes in the header above only, so the browser neither prompts for one on a
  // 401 (a mistyped key would hang the page behind its login box) nor adds one it keeps from elsewhere.
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'omit',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const raw = await response.text();
  /** @type {Json} */
  let parsed = null;
  try {
    parsed = raw === '' ? null : JSON.parse(raw);
  } catch {
    parsed = raw;
  }
  return { status: response.status, ok: response.ok, body: parsed };
}

/** @param {string} url @returns {Promise<JsonObject>} */
async function loadJson(url) {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return objectOr(await response.json());
}

// ---- reading the contracts -----------------------------------------------------------------------

/** @returns {{ control: JsonObject, service: JsonObject }} */
function loaded() {
  if (!contracts) throw new Error('the contracts are not loaded yet');
  return contracts;
}

/** Every operation of the control contract. @returns {Operation[]} */
function controlOperations() {
  return Object.entries(objectOr(loaded().control.paths)).flatMap(([path, item]) =>
    Object.entries(objectOr(item)).flatMap(([method, operation]) =>
      isObject(operation) && typeof operation.operationId === 'string'
        ? [{ method: method.toUpperCase(), path, operation }]
        : [],
    ),
  );
}

/** @param {string} operationId @returns {Operation | undefined} */
const operationNamed = (operationId) =>
  controlOperations().find((entry) => entry.operation.operationId === operationId);

/** The control contract's schema behind a `$ref`, with `allOf` members merged. @param {Json | undefined} schema @returns {JsonObject} */
function resolved(schema) {
  let current = objectOr(schema);
  const seen = new Set();
  while (typeof current.$ref === 'string' && current.$ref.startsWith('#/') && !seen.has(current.$ref)) {
    seen.add(current.$ref);
    /** @type {Json | undefined} */
    let target = loaded().control;
    for (const part of current.$ref.slice(2).split('/'))
      target = objectOr(target)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    const { $ref: _ref, ...rest } = current;
    current = { ...objectOr(target), ...rest };
  }
  if (Array.isArray(current.allOf)) {
    const members = current.allOf.map(resolved);
    const properties = Object.assign(
      {},
      ...members.map((member) => objectOr(member.properties)),
      objectOr(current.properties),
    );
    const required = [...members.flatMap((member) => arrayOr(member.required)), ...arrayOr(current.required)];
    const { allOf: _allOf, ...rest } = current;
    current = { ...Object.assign({}, ...members), ...rest, properties, required };
  }
  return current;
}

/** The JSON request body schema of an operation, resolved. @param {Operation} entry */
const requestSchema = (entry) =>
  resolved(objectOr(objectOr(objectOr(objectOr(entry.operation.requestBody).content)['application/json']).schema));

/** The states in which an operation is refused (its SANDBOX_STATE_CONFLICT-style triggers). @param {Operation} entry @returns {string[]} */
function conflictStates(entry) {
  return Object.values(objectOr(entry.operation['x-error-triggers'])).flatMap((trigger) =>
    objectOr(trigger).when === 'state' ? arrayOr(objectOr(trigger).states).map(text) : [],
  );
}

/** The service contract's state machine (states, final states), or undefined. @param {string} machine */
function stateMachine(machine) {
  const found = objectOr(objectOr(loaded().service['x-state-machines'])[machine]);
  return { states: arrayOr(found.states).map(text), final: arrayOr(found.final).map(text) };
}

/**
 * Whether a simulation is offered for a resource in `state`: not when its triggers refuse that state. A
 * trigger naming every state of the machine does not decide by the state alone (a direct debit is PENDING
 * both while its OTP is outstanding and after): then it is offered until the state is final, and the
 * sandbox's answer says the rest.
 * @param {Operation} entry @param {string | null} state @param {string} machine
 */
function offered(entry, state, machine) {
  const refused = conflictStates(entry);
  if (state === null || !refused.includes(state)) return true;
  const { states, final } = stateMachine(machine);
  return states.length > 0 && states.every((each) => refused.includes(each)) && !final.includes(state);
}

/** The simulations of a state machine (operations whose x-simulates names it). @param {string} machine */
const simulationsOf = (machine) =>
  controlOperations().filter((entry) => objectOr(entry.operation['x-simulates']).machine === machine);

/** @param {Operation} entry @param {(name: string) => string} value @returns {string} */
const filledPath = (entry, value) =>
  entry.path.replace(/\{([^}]+)\}/g, (_match, name) => encodeURIComponent(value(String(name))));

// ---- a form for a request body, from its schema ----------------------------------------------------

/**
 * Inputs for the body schema's properties; `given` fills those the resource answers for (an e-wallet
 * payment's external_id and ewallet_type). Returns the inputs and a reader of the body they hold.
 * @param {JsonObject} schema @param {JsonObject} given @param {string} idPrefix
 * @returns {{ fields: HTMLElement[], read: () => JsonObject }}
 */
function bodyForm(schema, given, idPrefix) {
  const required = arrayOr(schema.required).map(text);
  /** @type {HTMLElement[]} */
  const fields = [];
  /** @type {(() => [string, Json] | undefined)[]} */
  const readers = [];
  for (const [name, raw] of Object.entries(objectOr(schema.properties))) {
    const property = resolved(raw);
    if (given[name] !== undefined && given[name] !== null) {
      const value = given[name];
      readers.push(() => [name, value]);
      continue;
    }
    const label = `${name}${required.includes(name) ? '' : ' (optional)'}`;
    const types = arrayOr(property.type).length > 0 ? arrayOr(property.type).map(text) : [text(property.type)];
    if (Array.isArray(property.enum)) {
      const options = property.enum.map((option) => h('option', { value: text(option) }, text(option)));
      const select = /** @type {HTMLSelectElement} */ (
        h(
          'select',
          { 'aria-label': name, id: `${idPrefix}-${name}` },
          required.includes(name) ? null : h('option', { value: '' }, '(default)'),
          options,
        )
      );
      fields.push(h('label', {}, `${label} `, select));
      readers.push(() => (select.value === '' ? undefined : [name, select.value]));
    } else if (types.includes('boolean')) {
      const select = /** @type {HTMLSelectElement} */ (
        h(
          'select',
          { 'aria-label': name },
          h('option', { value: '' }, '(default)'),
          h('option', { value: 'true' }, 'true'),
          h('option', { value: 'false' }, 'false'),
        )
      );
      fields.push(h('label', {}, `${label} `, select));
      readers.push(() => (select.value === '' ? undefined : [name, select.value === 'true']));
    } else {
      const numeric = types.includes('number') || types.includes('integer');
      const input = /** @type {HTMLInputElement} */ (
        h('input', { 'aria-label': name, type: numeric ? 'number' : 'text', size: 12, placeholder: name })
      );
      fields.push(h('label', {}, `${label} `, input));
      readers.push(() => (input.value === '' ? undefined : [name, numeric ? Number(input.value) : input.value]));
    }
  }
  return {
    fields,
    read: () =>
      Object.fromEntries(
        readers.flatMap((reader) => {
          const entry = reader();
          return entry ? [entry] : [];
        }),
      ),
  };
}

// ---- resources -------------------------------------------------------------------------------------

function resourceKinds() {
  const list = operationNamed('listResources');
  const kind = arrayOr(list?.operation.parameters)
    .map(objectOr)
    .find((parameter) => parameter.name === 'kind');
  return arrayOr(resolved(kind?.schema).enum).map(text);
}

/**
 * One simulation as a small form with its button.
 * @param {Operation} entry @param {JsonObject} item @param {() => Promise<void>} after
 */
function simulationControl(entry, item, after) {
  const resource = objectOr(item.resource);
  const operationId = text(entry.operation.operationId);
  const schema = requestSchema(entry);
  const given = Object.fromEntries(
    Object.keys(objectOr(schema.properties)).flatMap((name) =>
      resource[name] !== undefined && arrayOr(schema.required).includes(name) ? [[name, resource[name] ?? null]] : [],
    ),
  );
  const form = bodyForm(schema, given, `${operationId}-${text(item.id)}`);
  const run = async () => {
    const path = filledPath(entry, (name) => text(resource[name] ?? item.id));
    const hasBody = entry.operation.requestBody !== undefined;
    const answer = await api(entry.method, path, hasBody ? form.read() : undefined);
    notify(
      answer.ok
        ? `${humanized(operationId)}: done (${answer.status}).`
        : `${humanized(operationId)} refused: ${describeError(answer)}`,
      answer.ok ? 'info' : 'error',
    );
    await after();
  };
  return h(
    'span',
    { class: 'simulation', 'data-operation': operationId },
    form.fields,
    h(
      'button',
      { type: 'button', title: text(entry.operation.summary), onclick: () => void run() },
      humanized(operationId),
    ),
  );
}

async function showResources() {
  const select = /** @type {HTMLSelectElement} */ (byId('resource-kind'));
  const list = operationNamed('listResources');
  const target = byId('resource-list');
  if (!list) {
    target.replaceChildren(
      h('p', {}, 'This sandbox has no resource lists (listResources is not in its control contract).'),
    );
    return;
  }
  const answer = await api('GET', `${filledPath(list, () => select.value)}?limit=50`);
  if (!answer.ok) {
    target.replaceChildren(h('p', { class: 'error' }, `Could not list ${select.value}: ${describeError(answer)}`));
    return;
  }
  const body = objectOr(answer.body);
  const machine = text(body.machine);
  const simulations = machine === '' ? [] : simulationsOf(machine);
  const items = arrayOr(body.data).map(objectOr);
  if (items.length === 0) {
    target.replaceChildren(h('p', { class: 'hint' }, `No ${select.value.replace(/_/g, ' ')} yet.`));
    return;
  }
  const rows = items.map((item) => {
    const resource = objectOr(item.resource);
    const state = item.state === null ? null : text(item.state);
    return h(
      'tr',
      { 'data-id': text(item.id) },
      h('td', {}, h('code', {}, text(item.id))),
      h('td', { class: `state-${state ?? ''}` }, state ?? ''),
      h('td', {}, text(resource.external_id ?? resource.reference_id ?? '')),
      h('td', {}, text(resource.amount ?? resource.expected_amount ?? '')),
      h('td', {}, text(resource.created ?? '')),
      h(
        'td',
        {},
        simulations
          .filter((entry) => offered(entry, state, machine))
          .map((entry) => simulationControl(entry, item, refresh)),
      ),
      h('td', {}, h('details', {}, h('summary', {}, 'JSON'), h('pre', {}, JSON.stringify(resource, null, 2)))),
    );
  });
  target.replaceChildren(
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['ID', 'State', 'Reference', 'Amount', 'Created', 'Simulations', 'Resource'].map((title) =>
            h('th', {}, title),
          ),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

// ---- events (callback deliveries) ------------------------------------------------------------------

/** @param {JsonObject} attempt @param {number} index */
function attemptLine(attempt, index) {
  const outcome = attempt.status === null ? `no answer: ${text(attempt.error)}` : `HTTP ${text(attempt.status)}`;
  return h(
    'li',
    { class: 'attempt' },
    `#${index + 1} at ${text(attempt.at)} → ${outcome} in ${text(attempt.duration_ms)} ms`,
  );
}

async function showEvents() {
  const list = operationNamed('listCallbackDeliveries');
  const resend = operationNamed('resendCallbackDelivery');
  const target = byId('event-list');
  if (!list) return void target.replaceChildren(h('p', {}, 'This sandbox does not list callback deliveries.'));
  const answer = await api(list.method, list.path);
  if (!answer.ok)
    return void target.replaceChildren(
      h('p', { class: 'error' }, `Could not list callbacks: ${describeError(answer)}`),
    );
  const deliveries = arrayOr(answer.body).map(objectOr);
  if (deliveries.length === 0) return void target.replaceChildren(h('p', { class: 'hint' }, 'No callbacks yet.'));
  const rows = deliveries.map((delivery) => {
    const state = text(delivery.state);
    const attempts = arrayOr(delivery.attempts).map(objectOr);
    const canResend = resend !== undefined && !conflictStates(resend).includes(state);
    const doResend = async () => {
      if (!resend) return;
      const sent = await api(
        resend.method,
        filledPath(resend, () => text(delivery.id)),
      );
      notify(
        sent.ok ? `Callback ${text(delivery.id)} resent.` : `Resend refused: ${describeError(sent)}`,
        sent.ok ? 'info' : 'error',
      );
      await showEvents();
    };
    return h(
      'tr',
      { 'data-id': text(delivery.id), 'data-state': state },
      h('td', {}, text(delivery.created)),
      h('td', {}, h('strong', {}, text(delivery.event)), h('br'), h('small', {}, text(delivery.webhook))),
      h('td', {}, text(delivery.url ?? '(no URL configured)')),
      h('td', { class: `state-${state}` }, state, delivery.alert === true ? ' (alert raised)' : ''),
      h(
        'td',
        {},
        `${attempts.length} of ${text(delivery.max_attempts)}`,
        h('ol', { class: 'attempts' }, attempts.map(attemptLine)),
        delivery.next_attempt_at ? h('small', {}, `next at ${text(delivery.next_attempt_at)}`) : null,
        delivery.failure_reason ? h('small', {}, text(delivery.failure_reason)) : null,
      ),
      h(
        'td',
        {},
        h('details', {}, h('summary', {}, 'Payload'), h('pre', {}, JSON.stringify(delivery.payload, null, 2))),
      ),
      h('td', {}, canResend ? h('button', { type: 'button', onclick: () => void doResend() }, 'Resend') : null),
    );
  });
  target.replaceChildren(
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Created', 'Event', 'URL', 'State', 'Attempts', 'Body', ''].map((title) => h('th', {}, title)),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

// ---- requests --------------------------------------------------------------------------------------

async function showRequests() {
  const list = operationNamed('listRequests');
  const target = byId('request-list');
  const answer = await api('GET', `${list?.path ?? '/sandbox/requests'}?limit=50`);
  if (answer.status === 404)
    return void target.replaceChildren(
      h('p', { class: 'hint' }, 'This sandbox does not record requests (GET /sandbox/requests answered 404).'),
    );
  if (!answer.ok)
    return void target.replaceChildren(h('p', { class: 'error' }, `Could not list requests: ${describeError(answer)}`));
  const requests = arrayOr(objectOr(answer.body).data).map(objectOr);
  if (requests.length === 0) return void target.replaceChildren(h('p', { class: 'hint' }, 'No requests yet.'));
  /** @param {string} title @param {Json | undefined} body */
  const bodyCell = (title, body) =>
    body === null || body === undefined || body === ''
      ? ''
      : h(
          'details',
          {},
          h('summary', {}, title),
          h('pre', {}, typeof body === 'string' ? body : JSON.stringify(body, null, 2)),
        );
  const rows = requests.map((request) =>
    h(
      'tr',
      { 'data-id': text(request.id) },
      h('td', {}, text(request.at)),
      h('td', {}, text(request.method)),
      h('td', {}, h('code', {}, text(request.path))),
      h('td', {}, text(request.status)),
      h('td', {}, text(request.error_code)),
      h('td', {}, text(request.idempotency_key)),
      h('td', {}, `${text(request.duration_ms)} ms`),
      h('td', {}, bodyCell('Request', request.request_body), bodyCell('Response', request.response_body)),
    ),
  );
  target.replaceChildren(
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['At', 'Method', 'Path', 'Status', 'error_code', 'Idempotency key', 'Duration', 'Bodies'].map((title) =>
            h('th', {}, title),
          ),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

// ---- settings --------------------------------------------------------------------------------------

/**
 * An input for one value of a setting's schema, and a reader of what it holds (undefined when it cannot be
 * read, with the reason shown beside it).
 * @param {JsonObject} schema @param {Json | undefined} current @param {string} label
 * @returns {{ input: HTMLElement, read: () => Json }}
 */
function valueInput(schema, current, label) {
  const types = Array.isArray(schema.type) ? schema.type.map(text) : [text(schema.type)];
  if (types.includes('boolean')) {
    const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'aria-label': label }));
    box.checked = current === true;
    return { input: box, read: () => box.checked };
  }
  if (types.includes('integer') || types.includes('number')) {
    const field = /** @type {HTMLInputElement} */ (h('input', { type: 'number', 'aria-label': label }));
    field.value = text(current);
    return { input: field, read: () => (field.value === '' && types.includes('null') ? null : Number(field.value)) };
  }
  if (types.includes('array')) {
    const field = /** @type {HTMLInputElement} */ (
      h('input', { type: 'text', size: 60, 'aria-label': label, placeholder: 'comma-separated' })
    );
    field.value = arrayOr(current).map(text).join(', ');
    return {
      input: field,
      read: () =>
        field.value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
    };
  }
  if (types.includes('string')) {
    const field = /** @type {HTMLInputElement} */ (
      h('input', { type: 'text', size: 60, 'aria-label': label, placeholder: types.includes('null') ? '(none)' : '' })
    );
    field.value = text(current);
    return { input: field, read: () => (field.value === '' && types.includes('null') ? null : field.value) };
  }
  const area = /** @type {HTMLTextAreaElement} */ (h('textarea', { rows: 3, cols: 60, 'aria-label': label }));
  area.value = JSON.stringify(current ?? null, null, 2);
  return { input: area, read: () => JSON.parse(area.value) };
}

/**
 * A row saving one change (`change()` builds the PATCH body) with a Save button, or at once for a checkbox.
 * @param {string} label @param {string} description @param {HTMLElement[]} inputs @param {() => Json} change
 */
function settingRow(label, description, inputs, change) {
  const status = h('span', { class: 'status', role: 'status' });
  const save = async () => {
    let body;
    try {
      body = change();
    } catch (error) {
      status.textContent = `not saved: ${error instanceof Error ? error.message : String(error)}`;
      status.className = 'status error';
      return;
    }
    const answer = await api('PATCH', operationNamed('updateSettings')?.path ?? '/sandbox/settings', body);
    status.textContent = answer.ok ? 'saved' : `not saved: ${describeError(answer)}`;
    status.className = `status ${answer.ok ? 'saved' : 'error'}`;
  };
  const instant = inputs.length === 1 && inputs[0] instanceof HTMLInputElement && inputs[0].type === 'checkbox';
  if (instant) inputs[0]?.addEventListener('change', () => void save());
  return h(
    'div',
    { class: 'setting', 'data-setting': label },
    h('strong', {}, label),
    h(
      'span',
      {},
      inputs,
      instant ? null : h('button', { type: 'button', onclick: () => void save() }, 'Save'),
      ' ',
      status,
    ),
    h('span', { class: 'description' }, description),
  );
}

async function showSettings() {
  const target = byId('settings-form');
  const read = operationNamed('getSettings');
  const update = operationNamed('updateSettings');
  const answer = await api(read?.method ?? 'GET', read?.path ?? '/sandbox/settings');
  if (!answer.ok || !update)
    return void target.replaceChildren(
      h('p', { class: 'error' }, `Could not read the settings: ${describeError(answer)}`),
    );
  const current = objectOr(answer.body);
  const schema = requestSchema(update);
  const shownSchema = resolved(
    objectOr(
      objectOr(objectOr(objectOr(objectOr(read?.operation.responses)['200']).content)['application/json']).schema,
    ),
  );
  /** @param {string} name */
  const describe = (name) =>
    text(
      resolved(objectOr(shownSchema.properties)[name]).description ??
        resolved(objectOr(schema.properties)[name]).description,
    );
  const rows = Object.entries(objectOr(schema.properties)).flatMap(([name, raw]) => {
    const property = resolved(raw);
    const entries = property.additionalProperties;
    if (text(property.type) === 'object' && isObject(entries)) {
      // A map (callback URLs per kind, ranges per bank): one row per key, saved as a merge of that key.
      const value = resolved(entries);
      return Object.entries(objectOr(current[name]))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, entryValue]) => {
          if (text(value.type) === 'object' && isObject(value.properties)) {
            const parts = Object.entries(value.properties).map(([part, partSchema]) => ({
              part,
              ...valueInput(resolved(partSchema), objectOr(entryValue)[part], `${name}.${key}.${part}`),
            }));
            return settingRow(
              `${name}.${key}`,
              describe(name),
              parts.flatMap(({ part, input }) => [h('label', {}, `${part} `, input)]),
              () => ({
                [name]: { [key]: Object.fromEntries(parts.map(({ part, read: readPart }) => [part, readPart()])) },
              }),
            );
          }
          const { input, read: readValue } = valueInput(value, entryValue, `${name}.${key}`);
          return settingRow(`${name}.${key}`, describe(name), [input], () => ({ [name]: { [key]: readValue() } }));
        });
    }
    const { input, read: readValue } = valueInput(property, current[name], name);
    return [settingRow(name, describe(name), [input], () => ({ [name]: readValue() }))];
  });
  target.replaceChildren(...rows);
}

// ---- clock -----------------------------------------------------------------------------------------

async function showClock() {
  const read = operationNamed('getClock');
  const answer = await api(read?.method ?? 'GET', read?.path ?? '/sandbox/clock');
  const clock = objectOr(answer.body);
  byId('clock-now').textContent = answer.ok
    ? `Now: ${text(clock.now)} (ahead of real time by ${Math.round(Number(clock.offset_ms) / 1000)} s)`
    : `Could not read the clock: ${describeError(answer)}`;
}

/** @param {SubmitEvent} event */
async function advanceClock(event) {
  event.preventDefault();
  const extension = objectOr(loaded().control['x-clock-advance']);
  const advance = operationNamed(text(extension.operation) || 'advanceClock');
  if (!advance) return notify('This sandbox cannot move its clock.', 'error');
  const amount = Number(/** @type {HTMLInputElement} */ (byId('clock-amount')).value);
  const unit = Number(/** @type {HTMLSelectElement} */ (byId('clock-unit')).value);
  const answer = await api(advance.method, advance.path, {
    [text(extension.field) || 'milliseconds']: Math.round(amount * unit),
  });
  notify(
    answer.ok
      ? `Clock advanced to ${text(objectOr(answer.body).now)}.`
      : `The clock did not move: ${describeError(answer)}`,
    answer.ok ? 'info' : 'error',
  );
  await showClock();
}

// ---- faults -----------------------------------------------------------------------------------------

/** Every operationId of the service contract, sorted. @returns {string[]} */
function serviceOperationIds() {
  return Object.values(objectOr(loaded().service.paths))
    .flatMap((item) =>
      Object.values(objectOr(item)).flatMap((operation) =>
        isObject(operation) && typeof operation.operationId === 'string' ? [operation.operationId] : [],
      ),
    )
    .sort();
}

/**
 * The form arming a fault, built once from armFault's request schema (the list below it is read again while
 * on screen; the form is not, so what is being typed stays). The operation is chosen from the service
 * contract's operations instead of typed.
 */
function buildFaultForm() {
  const arm = operationNamed('armFault');
  const form = byId('fault-form');
  if (!arm)
    return void form.replaceChildren(
      h('p', { class: 'hint' }, 'This sandbox cannot simulate faults (armFault is not in its control contract).'),
    );
  const schema = requestSchema(arm);
  const { operation: _operation, ...settings } = objectOr(schema.properties);
  const fields = bodyForm({ ...schema, properties: settings }, {}, 'fault');
  const operation = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { 'aria-label': 'operation' },
      h('option', { value: '' }, '(any operation)'),
      serviceOperationIds().map((id) => h('option', { value: id }, id)),
    )
  );
  form.replaceChildren(
    ...fields.fields,
    h('label', {}, 'operation ', operation),
    h('button', { type: 'submit' }, 'Arm fault'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      const body = fields.read();
      if (operation.value !== '') body.operation = operation.value;
      const answer = await api(arm.method, arm.path, body);
      notify(
        answer.ok
          ? `Fault ${text(objectOr(answer.body).id)} armed.`
          : `The fault was not armed: ${describeError(answer)}`,
        answer.ok ? 'info' : 'error',
      );
      await showFaults();
    })();
  });
}

/** What a fault does besides its kind, in a few words. @param {JsonObject} fault */
function faultSettings(fault) {
  return ['retry_after_seconds', 'limit', 'outcome', 'delay_ms']
    .flatMap((name) => (fault[name] === null || fault[name] === undefined ? [] : [`${name} ${text(fault[name])}`]))
    .join(', ');
}

async function showFaults() {
  const list = operationNamed('listFaults');
  const remove = operationNamed('removeFault');
  const clear = operationNamed('clearFaults');
  const target = byId('fault-list');
  if (!list) return void target.replaceChildren();
  const answer = await api(list.method, list.path);
  if (!answer.ok)
    return void target.replaceChildren(
      h('p', { class: 'error' }, `Could not list the faults: ${describeError(answer)}`),
    );
  const faults = arrayOr(objectOr(answer.body).data).map(objectOr);
  if (faults.length === 0)
    return void target.replaceChildren(h('p', { class: 'hint' }, 'No fault is armed: requests are answered as usual.'));
  /** @param {Operation | undefined} entry @param {string} path @param {string} done */
  const act = async (entry, path, done) => {
    if (!entry) return;
    const result = await api(entry.method, path);
    notify(result.ok ? done : `Refused: ${describeError(result)}`, result.ok ? 'info' : 'error');
    await showFaults();
  };
  const rows = faults.map((fault) =>
    h(
      'tr',
      { 'data-id': text(fault.id) },
      h('td', {}, h('code', {}, text(fault.id))),
      h('td', {}, text(fault.kind)),
      h('td', {}, text(fault.operation ?? '(any operation)')),
      h('td', { class: 'remaining' }, `${text(fault.remaining)} of ${text(fault.count)}`),
      h('td', {}, faultSettings(fault)),
      h(
        'td',
        {},
        remove
          ? h(
              'button',
              {
                type: 'button',
                onclick: () =>
                  void act(
                    remove,
                    filledPath(remove, () => text(fault.id)),
                    `Fault ${text(fault.id)} removed.`,
                  ),
              },
              'Remove',
            )
          : null,
      ),
    ),
  );
  const table = h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['ID', 'Kind', 'Operation', 'Requests left', 'Settings', ''].map((title) => h('th', {}, title)),
      ),
    ),
    h('tbody', {}, rows),
  );
  target.replaceChildren(
    table,
    ...(clear
      ? [
          h(
            'button',
            { type: 'button', onclick: () => void act(clear, clear.path, 'Every fault removed.') },
            'Clear all faults',
          ),
        ]
      : []),
  );
}

// ---- tabs, key, start ------------------------------------------------------------------------------

/** @type {Record<string, () => Promise<void>>} */
const panels = {
  resources: showResources,
  events: showEvents,
  requests: showRequests,
  settings: showSettings,
  clock: showClock,
  faults: showFaults,
};

async function refresh() {
  if (!secretKey || !contracts) return;
  await panels[activeTab]?.();
}

/** @param {string} tab */
async function showTab(tab) {
  activeTab = tab;
  for (const button of document.querySelectorAll('#tabs [data-tab]'))
    button.setAttribute('aria-pressed', String(button.getAttribute('data-tab') === tab));
  for (const panel of document.querySelectorAll('[data-panel]'))
    if (panel instanceof HTMLElement) panel.hidden = panel.id !== tab;
  await refresh();
}

/** Checks the key with the control API and opens the dashboard for its merchant and mode. @param {string} key */
async function useKey(key) {
  secretKey = key;
  const info = await api('GET', operationNamed('getSandbox')?.path ?? '/sandbox');
  if (!info.ok) {
    secretKey = null;
    sessionStorage.removeItem(KEY_STORAGE);
    byId('tabs').hidden = true;
    for (const panel of document.querySelectorAll('[data-panel]')) /** @type {HTMLElement} */ (panel).hidden = true;
    // A 401's message tells API clients how to send a key over HTTP; here the key was typed into the page.
    notify(
      info.status === 401
        ? 'The key was not accepted: it is not a key of this sandbox (the sandbox prints its keys when it starts).'
        : `The key was not accepted: ${describeError(info)}`,
      'error',
    );
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  const about = objectOr(info.body);
  byId('who').textContent =
    `Merchant ${text(about.merchant_id)}, ${text(about.mode)} mode${about.callback_token ? ` · callback token ${text(about.callback_token)}` : ''}`;
  byId('tabs').hidden = false;
  notify('');
  await showTab(activeTab);
}

async function start() {
  try {
    const [control, service] = await Promise.all([loadJson('/sandbox/openapi.json'), loadJson('/openapi.json')]);
    contracts = { control, service };
  } catch (error) {
    notify(
      `The sandbox's contracts could not be read: ${error instanceof Error ? error.message : String(error)}`,
      'error',
    );
    return;
  }
  const kindSelect = /** @type {HTMLSelectElement} */ (byId('resource-kind'));
  kindSelect.replaceChildren(...resourceKinds().map((kind) => h('option', { value: kind }, kind.replace(/_/g, ' '))));
  kindSelect.value = resourceKinds().includes('disbursements') ? 'disbursements' : kindSelect.value;
  kindSelect.addEventListener('change', () => void showResources());
  byId('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = /** @type {HTMLInputElement} */ (byId('key')).value.trim();
    if (key !== '') void useKey(key);
  });
  byId('forget-key').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_STORAGE);
    window.location.reload();
  });
  for (const button of document.querySelectorAll('#tabs [data-tab]'))
    button.addEventListener('click', () => void showTab(button.getAttribute('data-tab') ?? 'resources'));
  byId('refresh').addEventListener('click', () => void refresh());
  byId('clock-form').addEventListener('submit', (event) => void advanceClock(/** @type {SubmitEvent} */ (event)));
  buildFaultForm();
  // What changes by itself (callback attempts, requests, time, what is left of faults) is read again while it
  // is on screen; the resources and settings tabs hold forms a refresh would reset, so they change on demand only.
  setInterval(() => {
    if (['events', 'requests', 'clock', 'faults'].includes(activeTab) && document.visibilityState === 'visible')
      void refresh();
  }, POLL_MS);
  const kept = sessionStorage.getItem(KEY_STORAGE);
  if (kept) await useKey(kept);
}

void start();
