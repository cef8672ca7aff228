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
 * @param {...(Node | string | number | null | undefined | false | (Node | string | null | undefined | false)[])} children
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
    if (child === null || child === undefined || child === false || child === '') continue;
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

/**
 * A short account of an error answer: its code and message, and each field problem the message does not
 * already say (the sandbox's message often repeats its only problem word for word).
 * @param {Answer} answer
 */
function describeError(answer) {
  const body = objectOr(answer.body);
  const message = text(body.message);
  const issues = arrayOr(body.errors)
    .map(objectOr)
    .filter((issue) => !message.includes(text(issue.message)))
    .map((issue) => `${text(issue.path)} ${text(issue.message)}`.trim());
  return [`${answer.status} ${text(body.error_code)}`.trim(), message, ...issues].filter(Boolean).join(' — ');
}

/** A setting's name with places to break after each `_` and `.`, so a long name wraps between its words. @param {string} name */
const breakable = (name) => name.split(/(?<=[_.])/).flatMap((part, index) => (index === 0 ? [part] : [h('wbr'), part]));

// ---- formatting: money, time, status -----------------------------------------------------------------

const RUPIAH = new Intl.NumberFormat('id-ID', {
  style: 'currency',
  currency: 'IDR',
  minimumFractionDigits: 0,
  maximumFractionDigits: 0,
});

/** An amount in IDR ("Rp 17.500.000"), or nothing when there is none. @param {Json | undefined} value */
function money(value) {
  if (typeof value !== 'number') return null;
  return h('span', { class: 'amount', title: String(value) }, RUPIAH.format(value));
}

/** How far the merchant's sandbox clock is ahead of real time (getClock), so "3 min ago" is in sandbox time. */
let clockOffsetMs = 0;

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS = /** @type {const} */ ([
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
]);

/** "3 minutes ago", "in 2 hours", "now", from sandbox time. @param {number} at */
function relative(at) {
  const difference = at - (Date.now() + clockOffsetMs);
  if (Math.abs(difference) < 10_000) return 'just now';
  const [unit, size] = UNITS.find(([, length]) => Math.abs(difference) >= length) ?? ['second', 1000];
  return RELATIVE.format(Math.round(difference / size), unit);
}

/** A time as "3 minutes ago", with the exact ISO time on hover. @param {Json | undefined} value */
function when(value) {
  if (typeof value !== 'string' || value === '') return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return value;
  return h('time', { datetime: value, title: value }, relative(at));
}

/** The colour family of an object or delivery status. @param {string} status */
function tone(status) {
  const upper = status.toUpperCase();
  if (['COMPLETED', 'SUCCEEDED', 'SUCCESS', 'ACTIVE', 'DELIVERED', 'PAID', 'ENABLED', 'VERIFIED'].includes(upper))
    return 'ok';
  if (['PENDING', 'REQUIRES_ACTION', 'PROCESSING'].includes(upper)) return 'wait';
  if (['FAILED', 'EXPIRED', 'VOIDED', 'CANCELED', 'CANCELLED'].includes(upper)) return 'bad';
  return 'off';
}

/** A status as a coloured badge. @param {string | null} status */
const badge = (status) =>
  status === null || status === ''
    ? null
    : h('span', { class: `badge tone-${tone(status)}`, 'data-status': status }, status);

/** An HTTP status as a badge coloured by its class (2xx, 4xx, 5xx). @param {Json | undefined} status */
function httpBadge(status) {
  const code = Number(status);
  const family = code >= 500 ? 'bad' : code >= 400 ? 'client' : code >= 200 && code < 300 ? 'ok' : 'off';
  return h('span', { class: `badge tone-${family}`, 'data-http': String(code) }, String(code));
}

/** A failure code in the lists, or nothing. @param {Json | undefined} code */
const failure = (code) => (typeof code === 'string' && code !== '' ? h('span', { class: 'failure' }, code) : null);

/**
 * A table whose cells carry their column's title, so that on a narrow screen each row becomes a card of
 * titled lines (dashboard.css); inside a box that scrolls sideways should anything still be too wide.
 * @param {string[]} titles @param {HTMLElement[]} rows
 */
function table(titles, rows) {
  for (const row of rows)
    for (const [index, cell] of [...row.children].entries()) cell.setAttribute('data-label', titles[index] ?? '');
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: 'cards' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          titles.map((title) => h('th', {}, title)),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

/** A link to the object view of what `query` names (an id or an external_id). @param {string} query @param {string} [shown] */
const objectLink = (query, shown = query) =>
  h('a', { href: `#find/${encodeURIComponent(query)}`, class: 'object-link' }, h('code', { class: 'id' }, shown));

/**
 * The contract's descriptions in the small Markdown subset they use (paragraphs, `- ` lists, `code`,
 * **strong**, [links](#/decisions/...)), built as elements: descriptions are text, never HTML.
 * @param {string} source @returns {HTMLElement}
 */
function markdown(source) {
  const blocks = source
    .trim()
    .split(/\n\s*\n/)
    .map((block) => {
      const lines = block.split('\n').map((line) => line.trim());
      if (lines.every((line) => line.startsWith('- ')))
        return h(
          'ul',
          {},
          lines.map((line) => h('li', {}, inlineMarkdown(line.slice(2)))),
        );
      return h('p', {}, inlineMarkdown(lines.join(' ')));
    });
  return h('div', { class: 'description' }, blocks);
}

/** One line of that Markdown subset as text and elements. @param {string} line @returns {(Node | string)[]} */
function inlineMarkdown(line) {
  return line.split(/(`[^`]+`|\*\*[^*]+\*\*|\[[^\]]+\]\([^)\s]+\))/).map((part) => {
    if (/^`[^`]+`$/.test(part)) return h('code', {}, part.slice(1, -1));
    if (/^\*\*[^*]+\*\*$/.test(part)) return h('strong', {}, part.slice(2, -2));
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
    if (link) {
      const [, label = '', target = ''] = link;
      // Links into the contract's own docs stay on this host; any other target is shown, not followed.
      return target.startsWith('#/') ? h('a', { href: `/sandbox/docs${target}` }, label) : `${label} (${target})`;
    }
    return part;
  });
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
 * What the contract says an optional property becomes when it is left out: the fields of the object it
 * falls back to (`x-default-from`, else the object's fields the "when left out" sentence of its description
 * names, in order), the first of them the object has, and that sentence. A property whose fallbacks the
 * object lacks is not optional for it (a virtual account with neither amount needs the `amount`).
 * @param {JsonObject} property @param {JsonObject} resource @param {string[]} resourceFields
 */
function whenLeftOut(property, resource, resourceFields) {
  const sentence =
    text(property.description)
      .replace(/\s+/g, ' ')
      .split(/(?<=\.)\s+/)
      .find((part) => /when left out/i.test(part)) ?? '';
  const named = [...sentence.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((match) => match[1] ?? '');
  const from = typeof property['x-default-from'] === 'string' ? [property['x-default-from']] : [];
  const fallbacks = (from.length > 0 ? from : named).filter((name) => resourceFields.includes(name));
  const used = fallbacks.find((name) => resource[name] !== undefined && resource[name] !== null);
  return { sentence, fallbacks, used, value: used === undefined ? undefined : resource[used] };
}

/**
 * Inputs for the body schema's properties; `given` fills those the resource answers for (an e-wallet
 * payment's external_id and ewallet_type). Returns the inputs and a reader of the body they hold. With the
 * resource the form acts on, an optional property says what it defaults to (see whenLeftOut).
 * @param {JsonObject} schema @param {JsonObject} given @param {string} idPrefix
 * @param {{ resource: JsonObject, fields: string[] }} [target]
 * @returns {{ fields: HTMLElement[], read: () => JsonObject }}
 */
function bodyForm(schema, given, idPrefix, target = { resource: {}, fields: [] }) {
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
    const leftOut = whenLeftOut(property, target.resource, target.fields);
    const needed = required.includes(name) || (leftOut.fallbacks.length > 0 && leftOut.used === undefined);
    const label = needed || leftOut.used !== undefined ? name : `${name} (optional)`;
    const missing = !required.includes(name) && needed;
    const hint = missing
      ? h('span', { class: 'field-hint' }, `Needed here: it has no ${leftOut.fallbacks.join(' or ')} to fall back on.`)
      : leftOut.sentence === '' || needed
        ? null
        : h('span', { class: 'field-hint' }, inlineMarkdown(leftOut.sentence));
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
        h('input', {
          'aria-label': name,
          type: numeric ? 'number' : 'text',
          size: 12,
          placeholder: leftOut.value === undefined ? name : text(leftOut.value),
          required: needed,
        })
      );
      fields.push(h('label', {}, `${label} `, input));
      if (hint) fields.push(hint);
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
  const machine = objectOr(
    objectOr(loaded().service['x-state-machines'])[text(objectOr(entry.operation['x-simulates']).machine)],
  );
  const resourceSchema = objectOr(objectOr(objectOr(loaded().service.components).schemas)[text(machine.resource)]);
  const form = bodyForm(schema, given, `${operationId}-${text(item.id)}`, {
    resource,
    fields: Object.keys(objectOr(resourceSchema.properties)),
  });
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

/** @type {Map<string, number>} how many times each view was asked for */
const viewsAsked = new Map();

/**
 * Notes that `view` is asked for again; the function it gives says whether this is still the latest ask.
 * Answers come back in any order (the tab opened, then another kind or object chosen): a view shows only
 * what it was asked for last.
 * @param {string} view
 */
function askFor(view) {
  const asked = (viewsAsked.get(view) ?? 0) + 1;
  viewsAsked.set(view, asked);
  return () => viewsAsked.get(view) === asked;
}

async function showResources() {
  const latest = askFor('resources');
  const kind = /** @type {HTMLSelectElement} */ (byId('resource-kind')).value;
  const list = operationNamed('listResources');
  const target = byId('resource-list');
  if (!list) {
    target.replaceChildren(
      h('p', {}, 'This sandbox has no resource lists (listResources is not in its control contract).'),
    );
    return;
  }
  const answer = await api('GET', `${filledPath(list, () => kind)}?limit=50`);
  // A list asked for earlier (the tab opened, then another kind chosen) may be answered later: not shown.
  if (!latest()) return;
  if (!answer.ok) {
    target.replaceChildren(h('p', { class: 'error' }, `Could not list ${kind}: ${describeError(answer)}`));
    return;
  }
  const body = objectOr(answer.body);
  const machine = text(body.machine);
  const simulations = machine === '' ? [] : simulationsOf(machine);
  const items = arrayOr(body.data).map(objectOr);
  if (items.length === 0) {
    target.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        `No ${kind.replace(/_/g, ' ')} yet for this key. Create one through the API (see the API docs below); it shows here with the simulations its state allows.`,
      ),
    );
    return;
  }
  const rows = items.map((item) => {
    const resource = objectOr(item.resource);
    const state = item.state === null ? null : text(item.state);
    return h(
      'tr',
      { 'data-id': text(item.id) },
      h(
        'td',
        {},
        h(
          'a',
          { href: objectHash(kind, text(item.id)), class: 'object-link' },
          h('code', { class: 'id' }, text(item.id)),
        ),
      ),
      h('td', { class: 'state' }, badge(state)),
      h('td', {}, text(resource.external_id ?? resource.reference_id ?? '')),
      h(
        'td',
        { class: 'amount-cell' },
        money(resource.amount ?? resource.expected_amount ?? resource.suggested_amount),
      ),
      h('td', { class: 'failure-cell' }, failure(resource.failure_code)),
      h('td', {}, when(resource.created)),
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
    table(['ID', 'State', 'Reference', 'Amount', 'Failure', 'Created', 'Simulations', 'Resource'], rows),
  );
}

// ---- events (callback deliveries) ------------------------------------------------------------------

/** @param {JsonObject} attempt @param {number} index */
function attemptLine(attempt, index) {
  const outcome = attempt.status === null ? `no answer: ${text(attempt.error)}` : `HTTP ${text(attempt.status)}`;
  return h(
    'li',
    { class: 'attempt', 'data-http': attempt.status === null ? 'none' : text(attempt.status) },
    `#${index + 1} at `,
    when(attempt.at),
    ` → ${outcome} in ${text(attempt.duration_ms)} ms`,
    // Sent to a `payments-sandbox listen` on a developer's machine instead of the URL.
    attempt.forwarded === true ? h('span', { class: 'badge forwarded' }, 'via listen') : null,
  );
}

/** The id, external_id or reference_id a callback's payload names, for the link to its object. @param {JsonObject} payload */
const payloadReference = (payload) =>
  text(payload.external_id ?? payload.reference_id ?? payload.callback_virtual_account_id ?? payload.id);

/**
 * A delivery's state, its attempts (each with its answer) and what comes next, and its Resend button.
 * @param {JsonObject} delivery @param {() => Promise<void>} after
 */
function deliveryParts(delivery, after) {
  const resend = operationNamed('resendCallbackDelivery');
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
    await after();
  };
  return {
    state: [badge(state), delivery.alert === true ? ' (alert raised)' : ''],
    attempts: [
      `${attempts.length} of ${text(delivery.max_attempts)}`,
      h('ol', { class: 'attempts' }, attempts.map(attemptLine)),
      delivery.next_attempt_at ? h('small', {}, 'next ', when(delivery.next_attempt_at)) : null,
      delivery.failure_reason ? h('small', {}, text(delivery.failure_reason)) : null,
    ],
    resend: canResend ? h('button', { type: 'button', onclick: () => void doResend() }, 'Resend') : null,
  };
}

async function showEvents() {
  const list = operationNamed('listCallbackDeliveries');
  const target = byId('event-list');
  if (!list) return void target.replaceChildren(h('p', {}, 'This sandbox does not list callback deliveries.'));
  const answer = await api(list.method, list.path);
  if (!answer.ok)
    return void target.replaceChildren(
      h('p', { class: 'error' }, `Could not list callbacks: ${describeError(answer)}`),
    );
  const deliveries = arrayOr(answer.body).map(objectOr);
  if (deliveries.length === 0)
    return void target.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        'No callbacks yet. Set a callback URL for a kind in Settings, then pay an account, finish a disbursement or end an e-wallet payment (the simulations in Resources do it): each callback shows here with every delivery attempt.',
      ),
    );
  const rows = deliveries.map((delivery) => {
    const parts = deliveryParts(delivery, showEvents);
    const reference = payloadReference(objectOr(delivery.payload));
    return h(
      'tr',
      { 'data-id': text(delivery.id), 'data-state': text(delivery.state) },
      h('td', {}, when(delivery.created)),
      h('td', {}, h('strong', {}, text(delivery.event)), h('br'), h('small', {}, text(delivery.webhook))),
      h('td', {}, reference === '' ? null : objectLink(reference)),
      h('td', {}, text(delivery.url ?? '(no URL configured)')),
      h('td', {}, parts.state),
      h('td', {}, parts.attempts),
      h(
        'td',
        {},
        h('details', {}, h('summary', {}, 'Payload'), h('pre', {}, JSON.stringify(delivery.payload, null, 2))),
      ),
      h('td', {}, parts.resend),
    );
  });
  target.replaceChildren(table(['Created', 'Event', 'Object', 'URL', 'State', 'Attempts', 'Body', ''], rows));
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
  if (requests.length === 0)
    return void target.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        'No requests yet for this key. Each request your code sends to the service shows here with its status, error_code and both bodies (requests to the control API are not listed).',
      ),
    );
  target.replaceChildren(
    table(
      ['At', 'Method', 'Path', 'Status', 'error_code', 'Object', 'Idempotency key', 'Duration', 'Bodies'],
      requests.map(requestRow),
    ),
  );
}

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

/** The object a request's answer shows (its id), or null. @param {JsonObject} request */
function answeredObject(request) {
  try {
    const answer = JSON.parse(text(request.response_body));
    return isObject(answer) && typeof answer.id === 'string' ? answer.id : null;
  } catch {
    return null;
  }
}

/** @param {JsonObject} request */
function requestRow(request) {
  const object = answeredObject(request);
  return h(
    'tr',
    { 'data-id': text(request.id) },
    h('td', {}, when(request.at)),
    h('td', {}, text(request.method)),
    h('td', {}, h('code', {}, text(request.path))),
    h('td', {}, httpBadge(request.status)),
    h('td', {}, failure(request.error_code)),
    h('td', {}, object === null ? null : objectLink(object)),
    h('td', {}, text(request.idempotency_key)),
    h('td', { class: 'amount' }, `${text(request.duration_ms)} ms`),
    h('td', {}, bodyCell('Request', request.request_body), bodyCell('Response', request.response_body)),
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
 * `description` is given for a setting of its own; the rows of a map share their group's.
 * @param {string} setting @param {string} label @param {string | null} description @param {HTMLElement[]} inputs
 * @param {() => Json} change
 */
function settingRow(setting, label, description, inputs, change) {
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
    { class: 'setting', 'data-setting': setting },
    h('span', { class: 'name' }, breakable(label)),
    h(
      'span',
      { class: 'controls' },
      inputs,
      instant ? null : h('button', { type: 'button', onclick: () => void save() }, 'Save'),
      status,
    ),
    description ? markdown(description) : null,
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
  const rows = Object.entries(objectOr(schema.properties)).map(([name, raw]) => {
    const property = resolved(raw);
    const entries = property.additionalProperties;
    if (text(property.type) === 'object' && isObject(entries)) {
      // A map (callback URLs per kind, ranges per bank): one row per key, saved as a merge of that key, under
      // one heading that says once what the map is.
      const value = resolved(entries);
      const keyed = Object.entries(objectOr(current[name]))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, entryValue]) => {
          if (text(value.type) === 'object' && isObject(value.properties)) {
            const parts = Object.entries(value.properties).map(([part, partSchema]) => ({
              part,
              ...valueInput(resolved(partSchema), objectOr(entryValue)[part], `${name}.${key}.${part}`),
            }));
            return settingRow(
              `${name}.${key}`,
              key,
              null,
              parts.flatMap(({ part, input }) => [h('label', {}, `${part} `, input)]),
              () => ({
                [name]: { [key]: Object.fromEntries(parts.map(({ part, read: readPart }) => [part, readPart()])) },
              }),
            );
          }
          const { input, read: readValue } = valueInput(value, entryValue, `${name}.${key}`);
          return settingRow(`${name}.${key}`, key, null, [input], () => ({ [name]: { [key]: readValue() } }));
        });
      return h(
        'section',
        { class: 'setting-group', 'data-setting-group': name },
        h('h3', {}, breakable(name)),
        markdown(describe(name)),
        keyed,
      );
    }
    const { input, read: readValue } = valueInput(property, current[name], name);
    return h(
      'section',
      { class: 'setting-group' },
      settingRow(name, name, describe(name), [input], () => ({ [name]: readValue() })),
    );
  });
  target.replaceChildren(...rows);
}

// ---- clock -----------------------------------------------------------------------------------------

/** Reads the merchant's sandbox clock, which relative times count from. @returns {Promise<Answer>} */
async function readClock() {
  const read = operationNamed('getClock');
  const answer = await api(read?.method ?? 'GET', read?.path ?? '/sandbox/clock');
  const offset = Number(objectOr(answer.body).offset_ms);
  if (answer.ok && Number.isFinite(offset)) clockOffsetMs = offset;
  return answer;
}

async function showClock() {
  const answer = await readClock();
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
  target.replaceChildren(
    table(['ID', 'Kind', 'Operation', 'Requests left', 'Settings', ''], rows),
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

// ---- one object and its story; search --------------------------------------------------------------

/** @param {string} kind @param {string} id */
const objectHash = (kind, id) => `#object/${encodeURIComponent(kind)}/${encodeURIComponent(id)}`;

/** @typedef {{ kind: string, machine: string | null, item: JsonObject }} Listed */

/** The listed resources of some kinds (the newest 200 of each), each with its kind and machine. @param {string[]} kinds @returns {Promise<Listed[]>} */
async function listed(kinds) {
  const list = operationNamed('listResources');
  if (!list) return [];
  const answers = await Promise.all(
    kinds.map(async (kind) => ({ kind, answer: await api(list.method, `${filledPath(list, () => kind)}?limit=200`) })),
  );
  return answers.flatMap(({ kind, answer }) => {
    const body = objectOr(answer.body);
    const machine = typeof body.machine === 'string' ? body.machine : null;
    return answer.ok ? arrayOr(body.data).map((item) => ({ kind, machine, item: objectOr(item) })) : [];
  });
}

/** The names an object goes by: its id and the merchant's reference (external_id, reference_id). @param {JsonObject} item */
const namesOf = (item) =>
  [item.id, objectOr(item.resource).external_id, objectOr(item.resource).reference_id].flatMap((name) =>
    typeof name === 'string' && name !== '' ? [name] : [],
  );

/** @param {string} raw @returns {Json} */
function parsed(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/**
 * Whether a recorded request touched the object: its path names the id, or its answer is the object, or
 * (an answer that is no object, such as an error) its body names the object's id or reference.
 * @param {JsonObject} request @param {string} id @param {string[]} names
 */
function touches(request, id, names) {
  if (
    text(request.path)
      .split(/[/?&=]/)
      .includes(encodeURIComponent(id))
  )
    return true;
  const answer = objectOr(parsed(text(request.response_body)));
  if (typeof answer.id === 'string') return answer.id === id;
  const sent = objectOr(parsed(text(request.request_body)));
  return Object.values(sent).some((value) => typeof value === 'string' && names.includes(value));
}

/** Whether a callback reports on the object: a top-level field of its payload is the object's id or reference. @param {JsonObject} delivery @param {string[]} names */
const reportsOn = (delivery, names) =>
  Object.values(objectOr(delivery.payload)).some((value) => typeof value === 'string' && names.includes(value));

/**
 * The object's state changes, as the records show them: the state in each answer that is the object and in
 * each callback about it (its own status field, else the one state the service contract's transitions give
 * for that callback from the state before), and its state now. Consecutive repeats are one state.
 * @param {string | null} machineName @param {JsonObject} item
 * @param {{ at: string, source: string, answer?: JsonObject, delivery?: JsonObject }[]} records oldest first
 * @returns {{ at: string, state: string, source: string }[]}
 */
function stateChanges(machineName, item, records) {
  if (machineName === null) return [];
  const machine = objectOr(objectOr(loaded().service['x-state-machines'])[machineName]);
  const field = text(machine.field) || 'status';
  const states = arrayOr(machine.states).map(text);
  const resource = objectOr(item.resource);
  /** @param {JsonObject} condition @param {JsonObject} payload */
  const holds = (condition, payload) =>
    Object.entries(condition).every(([path, wanted]) => {
      const [scope, name = ''] = path.split(/\.(.*)/);
      const source = scope === 'resource' ? resource : scope === 'payload' ? payload : null;
      return source === null || source[name] === wanted;
    });
  /** @type {{ at: string, state: string, source: string }[]} */
  const seen = [];
  let before = /** @type {string | null} */ (null);
  for (const record of records) {
    let state = /** @type {string | null} */ (null);
    if (record.answer && record.answer.id === item.id) state = text(record.answer[field]);
    if (record.delivery) {
      const payload = objectOr(record.delivery.payload);
      if (payload.id === item.id && states.includes(text(payload[field]))) state = text(payload[field]);
      else {
        const targets = new Set(
          arrayOr(machine.transitions)
            .map(objectOr)
            .filter(
              (transition) =>
                arrayOr(transition.effects).some((effect) => objectOr(effect).callback === record.delivery?.webhook) &&
                (before === null || transition.from === before) &&
                holds(objectOr(transition.when), payload),
            )
            .map((transition) => text(transition.to)),
        );
        if (targets.size === 1) state = [...targets][0] ?? null;
      }
    }
    if (state !== null && states.includes(state)) {
      if (state !== before) seen.push({ at: record.at, state, source: record.source });
      before = state;
    }
  }
  const now = item.state === null ? null : text(item.state);
  // Its last update, unless that is older than the last record (a state reached by time, such as an
  // expiry, updates nothing).
  const last = Date.parse(records[records.length - 1]?.at ?? '');
  const updated = Date.parse(text(resource.updated));
  if (now !== null && now !== before)
    seen.push({
      at: new Date(
        Number.isNaN(updated) ? Date.now() + clockOffsetMs : Number.isNaN(last) ? updated : Math.max(updated, last),
      ).toISOString(),
      state: now,
      source: 'its state now',
    });
  return seen;
}

/** "1 request", "2 requests". @param {number} count @param {string} noun */
const counted = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The timeline's entry kinds in the order they go at one instant: a request, the change it made, the callback reporting it. */
const ENTRY_ORDER = ['request', 'state', 'callback'];

/** @param {{ at: string, element: HTMLElement }} a @param {{ at: string, element: HTMLElement }} b */
const chronologically = (a, b) =>
  Date.parse(a.at) - Date.parse(b.at) ||
  ENTRY_ORDER.indexOf(text(a.element.dataset.entry)) - ENTRY_ORDER.indexOf(text(b.element.dataset.entry));

/** @param {string} kind @param {string} id */
async function showObject(kind, id) {
  const latest = askFor('object');
  const target = byId('object-view');
  // "fixed_virtual_accounts" → "Fixed virtual account".
  const one = kind.replace(/_/g, ' ').replace(/s$/, '');
  byId('object-title').textContent = `${one.charAt(0).toUpperCase()}${one.slice(1)} ${id}`;
  const requestsOperation = operationNamed('listRequests');
  const deliveriesOperation = operationNamed('listCallbackDeliveries');
  const [found, requestsAnswer, deliveriesAnswer] = await Promise.all([
    listed([kind]),
    api('GET', `${requestsOperation?.path ?? '/sandbox/requests'}?limit=200`),
    deliveriesOperation ? api(deliveriesOperation.method, deliveriesOperation.path) : null,
  ]);
  if (!latest()) return;
  const entry = found.find(({ item }) => item.id === id);
  if (!entry)
    return void target.replaceChildren(
      h('p', { class: 'empty' }, `No ${kind.replace(/_/g, ' ')} with id ${id} among the newest 200 of this key.`),
    );
  const { item, machine } = entry;
  const resource = objectOr(item.resource);
  const names = namesOf(item);
  const requests = (requestsAnswer.ok ? arrayOr(objectOr(requestsAnswer.body).data).map(objectOr) : [])
    .filter((request) => touches(request, id, names))
    .reverse();
  const deliveries = (deliveriesAnswer?.ok ? arrayOr(deliveriesAnswer.body).map(objectOr) : [])
    .filter((delivery) => reportsOn(delivery, names))
    .reverse();
  /** @type {{ at: string, source: string, answer?: JsonObject, delivery?: JsonObject, element: HTMLElement }[]} */
  const records = [
    ...requests.map((request) => ({
      // Its arrival (`at`): what it did (a callback it caused, recorded while it ran) comes after it.
      at: text(request.at),
      source: `${text(request.method)} ${text(request.path)}`,
      answer: objectOr(parsed(text(request.response_body))),
      element: h(
        'li',
        { 'data-entry': 'request' },
        h('span', { class: 'kind' }, 'request'),
        when(request.at),
        ' ',
        h('strong', {}, text(request.method)),
        ' ',
        h('code', {}, text(request.path)),
        ' → ',
        httpBadge(request.status),
        ' ',
        failure(request.error_code),
        bodyCell('Request', request.request_body),
        bodyCell('Response', request.response_body),
      ),
    })),
    ...deliveries.map((delivery) => {
      const parts = deliveryParts(delivery, refresh);
      return {
        at: text(delivery.created),
        source: text(delivery.event),
        delivery,
        element: h(
          'li',
          { 'data-entry': 'callback', 'data-state': text(delivery.state) },
          h('span', { class: 'kind' }, 'callback'),
          when(delivery.created),
          ' ',
          h('strong', {}, text(delivery.event)),
          ' to ',
          h('code', {}, text(delivery.url ?? '(no URL configured)')),
          ' ',
          parts.state,
          ' ',
          parts.resend,
          h('div', {}, parts.attempts),
          h('details', {}, h('summary', {}, 'Payload'), h('pre', {}, JSON.stringify(delivery.payload, null, 2))),
        ),
      };
    }),
  ].sort(chronologically);
  const changes = stateChanges(machine, item, records).map((change, index, all) => ({
    at: change.at,
    element: h(
      'li',
      { 'data-entry': 'state' },
      h('span', { class: 'kind' }, 'state'),
      when(change.at),
      ' ',
      index === 0 ? 'became ' : [badge(all[index - 1]?.state ?? null), ' → '],
      badge(change.state),
      h('small', {}, ` (${change.source})`),
    ),
  }));
  const timeline = [...records, ...changes].sort(chronologically);
  const state = item.state === null ? null : text(item.state);
  const simulations = machine === null ? [] : simulationsOf(machine).filter((each) => offered(each, state, machine));
  /** @type {[string, Node | string | null][]} */
  const facts = [
    ['State', badge(state)],
    ['Reference', text(resource.external_id ?? resource.reference_id ?? '') || null],
    ['Amount', money(resource.amount ?? resource.expected_amount ?? resource.suggested_amount)],
    ['Failure', failure(resource.failure_code)],
    ['Created', when(resource.created)],
    ['Updated', when(resource.updated)],
  ];
  target.replaceChildren(
    h(
      'div',
      {},
      h(
        'dl',
        { class: 'object-summary' },
        facts.flatMap(([name, value]) => (value === null ? [] : [h('dt', {}, name), h('dd', {}, value)])),
      ),
      simulations.length > 0
        ? h(
            'p',
            {},
            simulations.map((each) => simulationControl(each, item, refresh)),
          )
        : null,
      h('h3', {}, 'Timeline'),
      h(
        'p',
        { class: 'hint' },
        `${counted(requests.length, 'request')}, ${counted(changes.length, 'state change')}, ${counted(deliveries.length, 'callback')}, oldest first. Requests are matched by the object's id and reference among the newest 200 recorded.`,
      ),
      timeline.length === 0
        ? h('p', { class: 'empty' }, 'Nothing recorded about it yet.')
        : h(
            'ol',
            { class: 'timeline' },
            timeline.map((record) => record.element),
          ),
      h('details', {}, h('summary', {}, 'JSON'), h('pre', {}, JSON.stringify(resource, null, 2))),
    ),
  );
}

/** The objects of every kind whose id or reference contains `query` (exact matches first). @param {string} query */
async function showFound(query) {
  const target = byId('found-list');
  byId('found-title').textContent = `Search: ${query}`;
  const latest = askFor('found');
  const wanted = query.toLowerCase();
  const listedNow = await listed(resourceKinds());
  if (!latest()) return;
  const matches = listedNow
    .filter(({ item }) => namesOf(item).some((name) => name.toLowerCase().includes(wanted)))
    .sort((a, b) => Number(namesOf(b.item).includes(query)) - Number(namesOf(a.item).includes(query)));
  const exact = matches.filter(({ item }) => namesOf(item).includes(query));
  if (exact.length === 1 && exact[0]) {
    // One object goes by that name: show it (replacing the search in the history, so Back leaves the search).
    window.location.replace(objectHash(exact[0].kind, text(exact[0].item.id)));
    return;
  }
  if (matches.length === 0)
    return void target.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        `Nothing of this key has an id or external_id containing "${query}" (among the newest 200 of each kind).`,
      ),
    );
  target.replaceChildren(
    table(
      ['Kind', 'ID', 'State', 'Reference', 'Amount', 'Created'],
      matches.map(({ kind, item }) => {
        const resource = objectOr(item.resource);
        return h(
          'tr',
          { 'data-id': text(item.id) },
          h('td', {}, kind.replace(/_/g, ' ')),
          h(
            'td',
            {},
            h(
              'a',
              { href: objectHash(kind, text(item.id)), class: 'object-link' },
              h('code', { class: 'id' }, text(item.id)),
            ),
          ),
          h('td', {}, badge(item.state === null ? null : text(item.state))),
          h('td', {}, text(resource.external_id ?? resource.reference_id ?? '')),
          h('td', {}, money(resource.amount ?? resource.expected_amount ?? resource.suggested_amount)),
          h('td', {}, when(resource.created)),
        );
      }),
    ),
  );
}

// ---- tabs, key, start ------------------------------------------------------------------------------

/** What the object view and the search show: the parts of the address after `#object/` or `#find/`. */
let routeArgs = /** @type {string[]} */ ([]);

/** @type {Record<string, () => Promise<void>>} */
const panels = {
  resources: showResources,
  events: showEvents,
  requests: showRequests,
  settings: showSettings,
  clock: showClock,
  faults: showFaults,
  object: () => showObject(routeArgs[0] ?? '', routeArgs[1] ?? ''),
  find: () => showFound(routeArgs[0] ?? ''),
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

/**
 * Shows what the address names: a tab (`#events`), one object (`#object/disbursements/<id>`) or a search
 * (`#find/<id or external_id>`), so each view can be linked to and Back returns to the one before.
 */
async function route() {
  const [name = '', ...args] = window.location.hash.replace(/^#/, '').split('/');
  routeArgs = args.map((part) => decodeURIComponent(part));
  // A notice is about the view it was given on.
  notify('');
  if (name === 'find' && routeArgs[0]) /** @type {HTMLInputElement} */ (byId('search')).value = routeArgs[0];
  await showTab(
    Object.hasOwn(panels, name)
      ? name
      : Object.hasOwn(panels, activeTab) && !['object', 'find'].includes(activeTab)
        ? activeTab
        : 'resources',
  );
}

/** @param {string} hash */
function go(hash) {
  if (window.location.hash === hash) void route();
  else window.location.hash = hash;
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
  const mode = byId('mode');
  mode.textContent = about.mode === 'live' ? 'Live mode' : `${text(about.mode)} mode`;
  mode.className = `mode-${text(about.mode)}`;
  mode.title = `A ${text(about.mode)} key: objects of one mode never appear in the other.`;
  mode.hidden = false;
  document.body.classList.toggle('live', about.mode === 'live');
  byId('welcome').hidden = true;
  // While a key is in use its field gives way to the merchant and mode; Forget key brings it back.
  byId('key-entry').hidden = true;
  byId('use-key').hidden = true;
  byId('forget-key').hidden = false;
  byId('tabs').hidden = false;
  await readClock();
  await route();
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
    button.addEventListener('click', () => go(`#${button.getAttribute('data-tab') ?? 'resources'}`));
  byId('refresh').addEventListener('click', () => void refresh());
  byId('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const query = /** @type {HTMLInputElement} */ (byId('search')).value.trim();
    if (query !== '') go(`#find/${encodeURIComponent(query)}`);
  });
  window.addEventListener('hashchange', () => {
    if (secretKey) void route();
  });
  byId('clock-form').addEventListener('submit', (event) => void advanceClock(/** @type {SubmitEvent} */ (event)));
  buildFaultForm();
  // What changes by itself (callback attempts, requests, time, what is left of faults) is read again while it
  // is on screen; the resources and settings tabs hold forms a refresh would reset, so they change on demand only.
  // The object view is read again too, unless a simulation's field in it is being filled in.
  setInterval(() => {
    const typing = activeTab === 'object' && byId('object-view').contains(document.activeElement);
    if (
      ['events', 'requests', 'clock', 'faults', 'object'].includes(activeTab) &&
      !typing &&
      document.visibilityState === 'visible'
    )
      void refresh();
  }, POLL_MS);
  const kept = sessionStorage.getItem(KEY_STORAGE);
  if (kept) await useKey(kept);
}

void start();
