// The released service contracts kept in spec/releases/ (see its README): the baseline of the release
// check and the input of the changelog.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Json, JsonObject } from '../model/types.js';

export const releasesDir = fileURLToPath(new URL('../../spec/releases/', import.meta.url));

export interface ReleaseEntry {
  version: string;
  date: string;
  contract: string;
  /** The release whose contract `contract` (a JSON Patch) applies to. */
  patchOf?: string;
}

export interface Release {
  version: string;
  date: string;
  doc: JsonObject;
}

/** `1.4.10` after `1.4.9`: versions compared number by number. */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

interface PatchOperation {
  op: 'replace' | 'add' | 'remove';
  path: string;
  value?: Json;
}

const tokens = (path: string): string[] =>
  path
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));

/** Applies the JSON Patch operations this store uses (replace, add, remove) to a copy of `doc`. */
export function applyPatch(doc: JsonObject, operations: readonly PatchOperation[]): JsonObject {
  const copy = structuredClone(doc);
  for (const operation of operations) {
    const path = tokens(operation.path);
    const last = path.pop();
    if (last === undefined) throw new Error(`patch path ${operation.path} names the whole document`);
    let parent: Json = copy;
    for (const token of path) {
      const next: Json | undefined = Array.isArray(parent)
        ? parent[Number(token)]
        : typeof parent === 'object' && parent !== null
          ? parent[token]
          : undefined;
      if (next === undefined || next === null || typeof next !== 'object')
        throw new Error(`patch path ${operation.path} does not exist`);
      parent = next;
    }
    if (Array.isArray(parent) || parent === null || typeof parent !== 'object')
      throw new Error(`patch path ${operation.path} does not name an object member`);
    if (operation.op !== 'add' && !(last in parent)) throw new Error(`patch path ${operation.path} does not exist`);
    if (operation.op === 'remove') delete parent[last];
    else parent[last] = operation.value ?? null;
  }
  return copy;
}

export function readReleaseEntries(dir: string = releasesDir): ReleaseEntry[] {
  const { releases } = JSON.parse(readFileSync(join(dir, 'releases.json'), 'utf8')) as { releases: ReleaseEntry[] };
  return [...releases].sort((a, b) => compareVersions(a.version, b.version));
}

/** Every release with its contract, oldest first. */
export function readReleases(dir: string = releasesDir): Release[] {
  const entries = readReleaseEntries(dir);
  const docs = new Map<string, JsonObject>();
  const load = (entry: ReleaseEntry, depth = 0): JsonObject => {
    const known = docs.get(entry.version);
    if (known) return known;
    if (depth > entries.length) throw new Error(`releases.json: a cycle of patches at ${entry.version}`);
    const contents = JSON.parse(readFileSync(join(dir, entry.contract), 'utf8')) as JsonObject | PatchOperation[];
    let doc: JsonObject;
    if (entry.patchOf === undefined) doc = contents as JsonObject;
    else {
      const base = entries.find((candidate) => candidate.version === entry.patchOf);
      if (!base) throw new Error(`releases.json: ${entry.version} patches ${entry.patchOf}, which is not listed`);
      doc = applyPatch(load(base, depth + 1), contents as PatchOperation[]);
    }
    docs.set(entry.version, doc);
    return doc;
  };
  return entries.map((entry) => ({ version: entry.version, date: entry.date, doc: load(entry) }));
}
