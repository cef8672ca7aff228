// A mutant's edit of one sandbox file, anchored to the declaration it is inside (`within`) and matched
// whitespace-insensitively: the mutant still applies after the file is reformatted or code around the
// declaration changes, and is called stale, loudly, once its declaration or text is gone or ambiguous.
import { Node, Project, type SourceFile } from 'ts-morph';
import type { Mutant, SourceEdit } from './types.js';

/** A mutant whose text is no longer in the sandbox: it proves nothing until it is written again. */
export class StaleMutantError extends Error {}

/** Source text with the whitespace outside literals dropped, and the offset in the source of each of its characters. */
export interface Compacted {
  text: string;
  from: number[];
}

const WORD = /[A-Za-z0-9_$]/;
const SPACE = /\s/;
/** Characters after which a `/` begins a regular expression, not a division. */
const BEFORE_REGEX =
  /[(,=:[!&|?{};+\-*%<>~^]$|(?:^|[^A-Za-z0-9_$])(?:return|typeof|case|in|of|void|delete|throw|new|yield|await|else|do)$/;

/** Where the quoted string starting at `start` ends (after its closing quote). */
function stringEnd(source: string, start: number): number {
  const quote = source[start];
  let at = start + 1;
  while (at < source.length && source[at] !== quote && source[at] !== '\n') at += source[at] === '\\' ? 2 : 1;
  return Math.min(at + 1, source.length);
}

/** Where a template's literal part starting at `start` ends: after its closing backtick, or after `${`. */
function templateEnd(source: string, start: number): { end: number; opensSubstitution: boolean } {
  let at = start;
  while (at < source.length) {
    if (source[at] === '\\') at += 2;
    else if (source[at] === '`') return { end: at + 1, opensSubstitution: false };
    else if (source[at] === '$' && source[at + 1] === '{') return { end: at + 2, opensSubstitution: true };
    else at += 1;
  }
  return { end: source.length, opensSubstitution: false };
}

function regexEnd(source: string, start: number): number {
  let at = start + 1;
  let inClass = false;
  while (at < source.length && source[at] !== '\n') {
    const char = source[at];
    if (char === '\\') at += 1;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) break;
    at += 1;
  }
  at += 1;
  while (at < source.length && WORD.test(source[at] ?? '')) at += 1;
  return Math.min(at, source.length);
}

/**
 * Drops whitespace between tokens (keeping one space between two word characters, so `return x` stays apart)
 * and trailing commas, and keeps string, template and regular expression literals and comments as written: two texts that differ
 * only in line breaks, indentation, spaces between tokens and trailing commas compact to the same text.
 */
export function compact(source: string): Compacted {
  let text = '';
  const from: number[] = [];
  /** For each template whose substitution is open, the brace depth its `${` was at. */
  const substitutions: number[] = [];
  let braces = 0;
  let space = -1;
  let at = 0;
  while (at < source.length) {
    const char = source[at] ?? '';
    if (SPACE.test(char)) {
      if (space < 0) space = at;
      at += 1;
      continue;
    }
    let end = at + 1;
    if (char === '"' || char === "'") end = stringEnd(source, at);
    else if (char === '`' || (char === '}' && substitutions.at(-1) === braces)) {
      if (char === '}') substitutions.pop();
      const template = templateEnd(source, at + 1);
      end = template.end;
      if (template.opensSubstitution) substitutions.push(braces);
    } else if (char === '/' && source[at + 1] === '/')
      end = source.includes('\n', at) ? source.indexOf('\n', at) : source.length;
    else if (char === '/' && source[at + 1] === '*')
      end = source.includes('*/', at + 2) ? source.indexOf('*/', at + 2) + 2 : source.length;
    else if (char === '/' && (text === '' || BEFORE_REGEX.test(text.slice(-8)))) end = regexEnd(source, at);
    else if (char === ',' && /^\s*(?:[)\]}]|$)/.test(source.slice(at + 1, at + 200))) {
      // A trailing comma, as a formatter adds when it breaks a list over lines (or one ending the text).
      at += 1;
      continue;
    } else if (char === '{') braces += 1;
    else if (char === '}') braces -= 1;
    if (space >= 0 && WORD.test(text.at(-1) ?? '') && WORD.test(char)) {
      text += ' ';
      from.push(space);
    }
    space = -1;
    for (let index = at; index < end; index += 1) {
      text += source[index];
      from.push(index);
    }
    at = end;
  }
  return { text, from };
}

let project: Project | undefined;

function parse(source: string): SourceFile {
  project ??= new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: false } });
  return project.createSourceFile('edited.ts', source, { overwrite: true });
}

/** The name a node declares, for the declarations `within` can name. */
function declaredName(node: Node): string | undefined {
  if (
    Node.isFunctionDeclaration(node) ||
    Node.isClassDeclaration(node) ||
    Node.isMethodDeclaration(node) ||
    Node.isPropertyDeclaration(node) ||
    Node.isGetAccessorDeclaration(node) ||
    Node.isSetAccessorDeclaration(node) ||
    Node.isVariableDeclaration(node) ||
    Node.isPropertyAssignment(node) ||
    Node.isEnumDeclaration(node)
  ) {
    return node.getName();
  }
  return undefined;
}

/** The text a declaration spans: a lone variable's whole statement, so `const x = …` can be found in it. */
function extent(node: Node): { start: number; end: number } {
  const statement = Node.isVariableDeclaration(node) ? node.getVariableStatement() : undefined;
  const spanned = statement && statement.getDeclarations().length === 1 ? statement : node;
  return { start: spanned.getStart(), end: spanned.getEnd() };
}

/**
 * The declaration `within` names: `name`, or `outer.inner…` (a class's method, a handler inside the function
 * that returns the handlers). Each name is looked for inside the previous declaration, at any depth; the
 * match inside the fewest other declarations counts, and two such matches are ambiguous.
 */
function findDeclaration(file: SourceFile, within: string): Node | { missing: string } | { ambiguous: string } {
  let scope: Node = file;
  for (const name of within.split('.')) {
    const inside = scope;
    const named = inside.getDescendants().filter((node) => declaredName(node) === name);
    // How deep in the scope's named declarations a match is: a top-level function beats a property of the same name inside another.
    const depth = (node: Node): number =>
      node
        .getAncestors()
        .filter(
          (ancestor) =>
            ancestor !== inside &&
            inside.containsRange(ancestor.getPos(), ancestor.getEnd()) &&
            declaredName(ancestor) !== undefined,
        ).length;
    const shallowest = Math.min(...named.map(depth));
    const [only, ...others] = named.filter((node) => depth(node) === shallowest);
    if (!only) return { missing: name };
    if (others.length > 0) return { ambiguous: name };
    scope = only;
  }
  return scope;
}

const shown = (text: string): string =>
  JSON.stringify(text.trim().length > 100 ? `${text.trim().slice(0, 100)}…` : text.trim());

/**
 * Applies one edit: finds its text, whitespace-insensitively, inside the declaration `within` names (else in
 * the whole file) and replaces exactly that span. Throws StaleMutantError naming the mutant and what is gone.
 */
export function applyEdit(source: string, edit: SourceEdit, mutant: string): string {
  const where = `sandbox/${edit.file}`;
  let range = { start: 0, end: source.length };
  if (edit.within !== undefined) {
    const found = findDeclaration(parse(source), edit.within);
    if ('missing' in found)
      throw new StaleMutantError(
        `${mutant}: ${where} has no declaration ${found.missing}${found.missing === edit.within ? '' : ` in ${edit.within}`}`,
      );
    if ('ambiguous' in found)
      throw new StaleMutantError(
        `${mutant}: ${where} declares ${found.ambiguous} more than once${found.ambiguous === edit.within ? '' : ` in ${edit.within}`}: name which one`,
      );
    range = extent(found);
  }
  const place = edit.within === undefined ? where : `${edit.within} in ${where}`;
  const wanted = compact(edit.find).text;
  if (wanted === '') throw new StaleMutantError(`${mutant}: an edit of ${place} has no text to find`);
  const file = compact(source);
  const spans: { start: number; end: number }[] = [];
  for (let at = file.text.indexOf(wanted); at !== -1; at = file.text.indexOf(wanted, at + 1)) {
    const start = file.from[at] ?? 0;
    let end = (file.from[at + wanted.length - 1] ?? 0) + 1;
    // A text ending in a comma replaces the comma that follows, trailing or not.
    if (edit.find.trimEnd().endsWith(',')) end += /^\s*,/.exec(source.slice(end))?.[0].length ?? 0;
    if (start >= range.start && end <= range.end) spans.push({ start, end });
  }
  const [span, ...more] = spans;
  if (!span) throw new StaleMutantError(`${mutant}: ${place} no longer contains ${shown(edit.find)}`);
  if (more.length > 0)
    throw new StaleMutantError(
      `${mutant}: ${place} contains ${shown(edit.find)} ${spans.length} times: the text to replace must occur once`,
    );
  return source.slice(0, span.start) + edit.replace + source.slice(span.end);
}

/** The text of every file the mutant edits, its edits applied in order (`read` gives a file's text under sandbox/). */
export function editedFiles(mutant: Mutant, read: (file: string) => string): Map<string, string> {
  const files = new Map<string, string>();
  for (const edit of mutant.edits)
    files.set(edit.file, applyEdit(files.get(edit.file) ?? read(edit.file), edit, mutant.name));
  return files;
}
