// Matches a request's method and path against the contract's path templates.
// Templates are matched segment by segment on percent-decoded segments, so a parameter may sit inside a
// segment behind a literal (`/callback_virtual_account_payments/payment_id={payment_id}`) whether or not the
// client encoded the literal's `=`. A trailing slash is not significant, in the template or in the request:
// the contract writes some paths with one and clients send both forms (GUIDE, "Conventions").

export interface RouteEntry<T> {
  /** Upper case, as in `Request.method`. */
  method: string;
  /** Path template as in the contract, e.g. `/direct_debits/{id}/`. */
  path: string;
  value: T;
}

export type MatchResult<T> =
  | { kind: 'found'; value: T; params: Record<string, string> }
  /** The path exists but not with this method; `allow` lists the methods it has. */
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface CompiledSegment {
  /** The segment itself when it has no parameter: compared as text, no pattern needed. */
  literal?: string;
  pattern: RegExp;
  names: string[];
}

interface CompiledTemplate<T> {
  segments: CompiledSegment[];
  /** Literal characters in the template: more literal text means more specific. */
  literalLength: number;
  path: string;
  methods: Map<string, T>;
}

const PARAMETER = /\{([^{}]+)\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Splits a path into its segments, dropping the empty segments a leading and a trailing slash give. */
function rawSegments(path: string): string[] {
  const segments = path.split('/').slice(1);
  return segments.length > 0 && segments.at(-1) === '' ? segments.slice(0, -1) : segments;
}

function compileSegment(segment: string): CompiledSegment {
  const names: string[] = [];
  let source = '';
  let last = 0;
  for (const match of segment.matchAll(PARAMETER)) {
    source += `${escapeRegExp(segment.slice(last, match.index))}(.+?)`;
    names.push(match[1] as string);
    last = match.index + match[0].length;
  }
  source += escapeRegExp(segment.slice(last));
  // A parameter never matches an empty value: `/fixed_payment_code/` is not `/fixed_payment_code/{id}` with id ''.
  const pattern = new RegExp(`^${source}$`, 's');
  return names.length === 0 ? { literal: segment, pattern, names } : { pattern, names };
}

/**
 * The request path's segments, percent-decoded; undefined when the encoding is broken (no route matches it).
 * The segments of `rawSegments`, made in one array (this runs on every request).
 */
export function decodedSegments(pathname: string): string[] | undefined {
  const segments = pathname.split('/');
  segments.shift();
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  try {
    for (let index = 0; index < segments.length; index += 1) {
      const segment = segments[index] as string;
      if (segment.includes('%')) segments[index] = decodeURIComponent(segment);
    }
  } catch {
    return undefined;
  }
  return segments;
}

function matchTemplate<T>(template: CompiledTemplate<T>, segments: string[]): Record<string, string> | undefined {
  if (template.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < segments.length; index += 1) {
    const compiled = template.segments[index] as CompiledSegment;
    const segment = segments[index] as string;
    if (compiled.literal !== undefined) {
      if (compiled.literal !== segment) return undefined;
      continue;
    }
    const found = compiled.pattern.exec(segment);
    if (!found) return undefined;
    for (let position = 0; position < compiled.names.length; position += 1)
      params[compiled.names[position] as string] = found[position + 1] as string;
  }
  return params;
}

/**
 * The templates that can match a path, by its number of segments and its first segment, most specific first
 * (the order of `templates`): a request is tried against a handful of templates, not all of them.
 */
function candidatesByShape<T>(
  templates: readonly CompiledTemplate<T>[],
): (segments: readonly string[]) => readonly CompiledTemplate<T>[] {
  const byLength = new Map<number, { byFirst: Map<string, CompiledTemplate<T>[]>; anyFirst: CompiledTemplate<T>[] }>();
  for (const template of templates) {
    let shape = byLength.get(template.segments.length);
    if (!shape) byLength.set(template.segments.length, (shape = { byFirst: new Map(), anyFirst: [] }));
    const first = template.segments[0]?.literal;
    if (first === undefined) shape.anyFirst.push(template);
    else if (!shape.byFirst.has(first)) shape.byFirst.set(first, []);
  }
  // Each first-segment list also holds the templates whose first segment is a parameter, in the overall order.
  for (const [length, shape] of byLength) {
    for (const [first, list] of shape.byFirst) {
      list.push(
        ...templates.filter(
          (t) =>
            t.segments.length === length && (t.segments[0]?.literal === undefined || t.segments[0].literal === first),
        ),
      );
    }
  }
  const none: CompiledTemplate<T>[] = [];
  return (segments) => {
    const shape = byLength.get(segments.length);
    if (!shape) return none;
    return shape.byFirst.get(segments[0] ?? '') ?? shape.anyFirst;
  };
}

/**
 * Compiles the routes once. The returned function finds the most specific template that matches the path
 * and has the method; when templates match but none has the method, the answer is `method-not-allowed`.
 */
export function createPathMatcher<T>(
  routes: Iterable<RouteEntry<T>>,
): (method: string, pathname: string) => MatchResult<T> {
  const byPath = new Map<string, CompiledTemplate<T>>();
  for (const route of routes) {
    const key = rawSegments(route.path).join('/');
    let template = byPath.get(key);
    if (!template) {
      const segments = rawSegments(route.path).map(compileSegment);
      const literalLength = route.path.replace(PARAMETER, '').length;
      template = { segments, literalLength, path: route.path, methods: new Map() };
      byPath.set(key, template);
    }
    if (template.methods.has(route.method)) throw new Error(`two routes for ${route.method} ${route.path}`);
    template.methods.set(route.method, route.value);
  }
  const templates = [...byPath.values()].sort(
    (a, b) => b.literalLength - a.literalLength || a.path.localeCompare(b.path),
  );
  const candidates = candidatesByShape(templates);

  return (method, pathname) => {
    const segments = decodedSegments(pathname);
    if (!segments) return { kind: 'not-found' };
    // Made only for a path that matches without the method.
    let allow: Set<string> | undefined;
    for (const template of candidates(segments)) {
      const params = matchTemplate(template, segments);
      if (!params) continue;
      const value = template.methods.get(method);
      if (value !== undefined) return { kind: 'found', value, params };
      allow ??= new Set();
      for (const known of template.methods.keys()) allow.add(known);
    }
    return allow ? { kind: 'method-not-allowed', allow: [...allow].sort() } : { kind: 'not-found' };
  };
}
