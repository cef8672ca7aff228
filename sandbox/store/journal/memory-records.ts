// The journal store's records, held in memory with the indexes its lookups need. Each record is kept as JSON
// text (every reader parses its own copy) plus the index keys of its looked-up fields. Every change returns
// how to undo it, so a failed transaction, or a group whose journal write failed, can be taken back.
// Looked-up values compare as SQLite's json_extract does in the SQLite store: strings with strings, numbers
// with numbers, true and false as 1 and 0; a null, missing, object or array value is not indexed (and never
// collides with another under a unique field).
import {
  DuplicateKeyError,
  frozenRecord,
  pageOf,
  type CollectionDefinition,
  type FindOptions,
  type JsonRecord,
  type Mode,
  type Scope,
} from '../store.js';
import { scopeKeyOf } from '../scope-key.js';

/** One stored record. `committedText` is its text as of the last commit (undefined: inserted since). */
export class StoredRecord {
  /** The committed record as reads outside a transaction get it (frozenRecord), once it has been read twice. */
  #committedRecord: JsonRecord | undefined;
  /** Read outside a transaction since its last commit or before: the next read keeps what it parses. */
  #readBefore = false;

  constructor(
    readonly seq: number,
    readonly scopeKey: string,
    readonly merchantId: string,
    readonly mode: Mode,
    readonly id: string,
    public text: string,
    /** Index key of each looked-up field of the collection, in `Collection.fields` order. */
    public keys: (IndexKey | undefined)[],
    public committedText: string | undefined,
  ) {}

  /** Its text as it is now is committed. */
  committed(): void {
    if (this.committedText === this.text) return;
    this.committedText = this.text;
    this.#committedRecord = undefined;
  }

  /**
   * The committed record, frozen. Kept from its second read until a commit changes it: a record read again
   * and again (an FVA, a balance) is parsed once, while one read once (most) keeps only its text in memory.
   */
  committedRecord<T extends JsonRecord>(): T | undefined {
    if (this.#committedRecord !== undefined) return this.#committedRecord as T;
    if (this.committedText === undefined) return undefined;
    const record = frozenRecord<T>(this.committedText);
    if (this.#readBefore) this.#committedRecord = record;
    this.#readBefore = true;
    return record;
  }
}

/** How to take a change back. */
export type Undo =
  | { kind: 'insert'; collection: Collection; record: StoredRecord }
  | { kind: 'update'; collection: Collection; record: StoredRecord; text: string; keys: (IndexKey | undefined)[] }
  | { kind: 'delete'; collection: Collection; record: StoredRecord }
  | {
      kind: 'clear-scope';
      scopeKey: string;
      removed: { collection: Collection; records: Map<string, StoredRecord> }[];
    };

/**
 * A looked-up value as the indexes hold it: a string or a number as it is (a Map tells `'1'` from `1`, and
 * takes `-0` for `0` as SQLite does), true and false as 1 and 0. Maps nested by field, scope and value
 * rather than keys joined into one string: joining made a new string to hash at every change and lookup.
 */
type IndexKey = string | number;

const indexKeyOf = (value: unknown): IndexKey | undefined => {
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
};

const bySeq = (a: StoredRecord, b: StoredRecord): number => a.seq - b.seq;

/** Records in insertion order, oldest or newest first, paged as `options` says. */
const ordered = (records: StoredRecord[], options: FindOptions | undefined): StoredRecord[] =>
  pageOf(options?.order === 'oldest' ? records : records.reverse(), options);

/**
 * The records under one index key: most keys (ids, unique values) have one, held as it is; a Set only once
 * there are more, since a Set for every unique value made most of an insert's cost and garbage.
 */
type Members = StoredRecord | Set<StoredRecord>;
/** One field's records by value. */
type ByValue = Map<IndexKey, Members>;

/** Members of an index entry in insertion order (a record whose value changed back re-joins at the end). */
function inSeqOrder(members: Members): StoredRecord[] {
  if (members instanceof StoredRecord) return [members];
  const records = [...members];
  for (let i = 1; i < records.length; i++) if (records[i - 1]!.seq > records[i]!.seq) return records.sort(bySeq);
  return records;
}

export class Collection {
  /** Looked-up fields: the unique ones first. */
  readonly fields: string[];
  readonly uniqueCount: number;
  /** Records of each scope by id, in insertion order. */
  readonly scopes = new Map<string, Map<string, StoredRecord>>();
  /** Records by field (its number), scope and value. */
  readonly #scoped: Map<string, ByValue>[];
  /**
   * Records by field and value, whatever their scope; and by id. Each is made at its first lookup across
   * scopes and kept from then on: most fields are only ever looked up within a scope, and keeping every
   * record in a second index nobody reads (disbursements and idempotency keys grow all day) was a large share
   * of an insert's cost.
   */
  readonly #across: (ByValue | undefined)[];
  #ids: ByValue | undefined;

  constructor(readonly definition: CollectionDefinition) {
    const unique = definition.unique ?? [];
    this.fields = [...unique, ...(definition.indexed ?? []).filter((field) => !unique.includes(field))];
    this.uniqueCount = unique.length;
    this.#scoped = this.fields.map(() => new Map());
    this.#across = this.fields.map(() => undefined);
  }

  get name(): string {
    return this.definition.name;
  }

  fieldNumber(field: string): number {
    const number = this.fields.indexOf(field);
    if (number < 0) throw new Error(`${this.name}.${field} is not an indexed field`);
    return number;
  }

  keysOf(record: JsonRecord): (IndexKey | undefined)[] {
    const keys: (IndexKey | undefined)[] = new Array(this.fields.length);
    for (let field = 0; field < keys.length; field++) keys[field] = indexKeyOf(record[this.fields[field]!]);
    return keys;
  }

  find(scopeKey: string, field: number, key: IndexKey | undefined): StoredRecord[] {
    const members = key === undefined ? undefined : this.#scoped[field]!.get(scopeKey)?.get(key);
    return members ? inSeqOrder(members) : [];
  }

  findAcross(field: number, key: IndexKey | undefined): StoredRecord[] {
    const members = key === undefined ? undefined : this.#acrossIndex(field).get(key);
    return members ? inSeqOrder(members) : [];
  }

  findById(id: string): StoredRecord[] {
    const members = this.#idIndex().get(id);
    return members ? inSeqOrder(members) : [];
  }

  /** The index of `field` across scopes, made from the records now held at its first use. */
  #acrossIndex(field: number): ByValue {
    return (this.#across[field] ??= this.#indexOfAll((record) => record.keys[field]));
  }

  #idIndex(): ByValue {
    return (this.#ids ??= this.#indexOfAll((record) => record.id));
  }

  /** Every record held, by the key `keyOf` gives it (none: left out). */
  #indexOfAll(keyOf: (record: StoredRecord) => IndexKey | undefined): ByValue {
    const index: ByValue = new Map();
    for (const records of this.scopes.values())
      for (const record of records.values()) {
        const key = keyOf(record);
        if (key !== undefined) add(index, key, record);
      }
    return index;
  }

  /** The first unique field of `keys` that another record of the scope already holds. */
  takenUniqueField(scopeKey: string, keys: (IndexKey | undefined)[], self?: StoredRecord): number | undefined {
    for (let field = 0; field < this.uniqueCount; field++) {
      const key = keys[field];
      if (key === undefined) continue;
      const holders = this.#scoped[field]!.get(scopeKey)?.get(key);
      if (holders !== undefined && holders !== self) return field;
    }
    return undefined;
  }

  index(record: StoredRecord): void {
    if (this.#ids !== undefined) add(this.#ids, record.id, record);
    for (let field = 0; field < record.keys.length; field++) this.#indexField(record, field);
  }

  unindex(record: StoredRecord): void {
    if (this.#ids !== undefined) remove(this.#ids, record.id, record);
    for (let field = 0; field < record.keys.length; field++) this.#unindexField(record, field, record.keys[field]);
  }

  /** Moves `record` from its old keys to `keys` where they differ. */
  reindex(record: StoredRecord, keys: (IndexKey | undefined)[]): void {
    for (let field = 0; field < keys.length; field++) {
      if (record.keys[field] === keys[field]) continue;
      this.#unindexField(record, field, record.keys[field]);
      record.keys[field] = keys[field];
      this.#indexField(record, field);
    }
  }

  #indexField(record: StoredRecord, field: number): void {
    const key = record.keys[field];
    if (key === undefined) return;
    const scoped = this.#scoped[field]!;
    let inScope = scoped.get(record.scopeKey);
    if (inScope === undefined) {
      inScope = new Map();
      scoped.set(record.scopeKey, inScope);
    }
    add(inScope, key, record);
    const across = this.#across[field];
    if (across !== undefined) add(across, key, record);
  }

  #unindexField(record: StoredRecord, field: number, key: IndexKey | undefined): void {
    if (key === undefined) return;
    const scoped = this.#scoped[field]!;
    const inScope = scoped.get(record.scopeKey);
    if (inScope !== undefined) {
      remove(inScope, key, record);
      if (inScope.size === 0) scoped.delete(record.scopeKey);
    }
    const across = this.#across[field];
    if (across !== undefined) remove(across, key, record);
  }
}

function add(index: ByValue, key: IndexKey, record: StoredRecord): void {
  const members = index.get(key);
  if (members === undefined) index.set(key, record);
  else if (members instanceof StoredRecord) index.set(key, new Set([members, record]));
  else members.add(record);
}

function remove(index: ByValue, key: IndexKey, record: StoredRecord): void {
  const members = index.get(key);
  if (members === record) index.delete(key);
  else if (members instanceof Set) {
    members.delete(record);
    if (members.size === 1) index.set(key, members.values().next().value as StoredRecord);
  }
}

/** Every collection's records. Reads hand out parsed copies; writes return their undo. */
export class MemoryRecords {
  readonly #collections: Map<string, Collection>;
  #lastSeq = 0;
  /** Sum of the stored texts' lengths: what a journal rewritten from scratch would hold, roughly. */
  liveChars = 0;

  constructor(definitions: readonly CollectionDefinition[]) {
    this.#collections = new Map(definitions.map((definition) => [definition.name, new Collection(definition)]));
  }

  collection(name: string): Collection {
    const found = this.#collections.get(name);
    if (!found) throw new Error(`unknown collection ${name}`);
    return found;
  }

  /** Adds a collection (one met in a journal that this version no longer defines). */
  define(definition: CollectionDefinition): void {
    this.#collections.set(definition.name, new Collection(definition));
  }

  has(name: string): boolean {
    return this.#collections.has(name);
  }

  stored(collection: string, scope: Scope, id: string): StoredRecord | undefined {
    return this.collection(collection).scopes.get(scopeKeyOf(scope.merchantId, scope.mode))?.get(id);
  }

  findBy(
    collection: string,
    scope: Scope,
    field: string,
    value: string | number | boolean,
    options?: FindOptions,
  ): StoredRecord[] {
    const c = this.collection(collection);
    return ordered(c.find(scopeKeyOf(scope.merchantId, scope.mode), c.fieldNumber(field), indexKeyOf(value)), options);
  }

  list(collection: string, scope: Scope, options?: FindOptions): StoredRecord[] {
    const records = this.collection(collection).scopes.get(scopeKeyOf(scope.merchantId, scope.mode));
    return records ? ordered([...records.values()], options) : [];
  }

  findAcross(collection: string, field: string, value: string | number | boolean): StoredRecord[] {
    const c = this.collection(collection);
    return field === 'id' ? c.findById(String(value)) : c.findAcross(c.fieldNumber(field), indexKeyOf(value));
  }

  /** Inserts, or replaces the record with the same id (replaying a journal). `text` is `record` as JSON. */
  put(collection: string, merchantId: string, mode: Mode, record: JsonRecord, text: string): Undo {
    const c = this.collection(collection);
    const existing = c.scopes.get(scopeKeyOf(merchantId, mode))?.get(record.id);
    return existing ? this.#update(c, existing, record, text) : this.#insert(c, merchantId, mode, record, text);
  }

  insert(collection: string, scope: Scope, record: JsonRecord, text: string): Undo {
    const c = this.collection(collection);
    if (c.scopes.get(scopeKeyOf(scope.merchantId, scope.mode))?.has(record.id))
      throw new Error(`${collection} ${record.id} already exists`);
    return this.#insert(c, scope.merchantId, scope.mode, record, text);
  }

  update(collection: string, scope: Scope, record: JsonRecord, text: string): Undo {
    const c = this.collection(collection);
    const existing = c.scopes.get(scopeKeyOf(scope.merchantId, scope.mode))?.get(record.id);
    if (!existing) throw new Error(`${collection} ${record.id} does not exist`);
    return this.#update(c, existing, record, text);
  }

  /** Removes the record with this id; undefined if there is none. */
  delete(collection: string, merchantId: string, mode: string, id: string): Undo | undefined {
    const c = this.collection(collection);
    const record = c.scopes.get(scopeKeyOf(merchantId, mode))?.get(id);
    if (!record) return undefined;
    this.#remove(c, record);
    return { kind: 'delete', collection: c, record };
  }

  clearScope(merchantId: string, mode: string): Undo {
    const scopeKey = scopeKeyOf(merchantId, mode);
    const removed: { collection: Collection; records: Map<string, StoredRecord> }[] = [];
    for (const c of this.#collections.values()) {
      const records = c.scopes.get(scopeKey);
      if (!records) continue;
      c.scopes.delete(scopeKey);
      for (const record of records.values()) {
        c.unindex(record);
        this.liveChars -= record.text.length;
      }
      removed.push({ collection: c, records });
    }
    return { kind: 'clear-scope', scopeKey, removed };
  }

  /** Takes `change` back. Changes are undone newest first, so each finds the records as it left them. */
  undo(change: Undo): void {
    if (change.kind === 'insert') this.#remove(change.collection, change.record);
    else if (change.kind === 'delete') {
      const records = this.#add(change.collection, change.record);
      // Lists follow the order records were added in: one put back among later ones goes to its place.
      if (records.size > 1)
        change.collection.scopes.set(change.record.scopeKey, new Map([...records].sort(([, a], [, b]) => bySeq(a, b))));
    } else if (change.kind === 'update') {
      const { collection: c, record } = change;
      c.reindex(record, change.keys);
      this.liveChars += change.text.length - record.text.length;
      record.text = change.text;
    } else {
      for (const { collection: c, records } of change.removed) {
        c.scopes.set(change.scopeKey, records);
        for (const record of records.values()) {
          c.index(record);
          this.liveChars += record.text.length;
        }
      }
    }
  }

  /** Every record, in insertion order, with its collection, scope and text as they are now (to rewrite the journal). */
  all(): { collection: string; merchantId: string; mode: Mode; text: string; seq: number }[] {
    const every: { collection: string; merchantId: string; mode: Mode; text: string; seq: number }[] = [];
    for (const c of this.#collections.values())
      for (const records of c.scopes.values())
        for (const { merchantId, mode, text, seq } of records.values())
          every.push({ collection: c.name, merchantId, mode, text, seq });
    return every.sort((a, b) => a.seq - b.seq);
  }

  #insert(c: Collection, merchantId: string, mode: Mode, record: JsonRecord, text: string): Undo {
    const scopeKey = scopeKeyOf(merchantId, mode);
    const keys = c.keysOf(record);
    this.#refuseTaken(c, scopeKey, keys, record);
    const stored = new StoredRecord(++this.#lastSeq, scopeKey, merchantId, mode, record.id, text, keys, undefined);
    this.#add(c, stored);
    return { kind: 'insert', collection: c, record: stored };
  }

  /** Adds `record` at the end of its scope's records, indexed; returns them. */
  #add(c: Collection, record: StoredRecord): Map<string, StoredRecord> {
    let records = c.scopes.get(record.scopeKey);
    if (!records) {
      records = new Map();
      c.scopes.set(record.scopeKey, records);
    }
    records.set(record.id, record);
    c.index(record);
    this.liveChars += record.text.length;
    return records;
  }

  #remove(c: Collection, record: StoredRecord): void {
    const records = c.scopes.get(record.scopeKey);
    records?.delete(record.id);
    if (records?.size === 0) c.scopes.delete(record.scopeKey);
    c.unindex(record);
    this.liveChars -= record.text.length;
  }

  #update(c: Collection, stored: StoredRecord, record: JsonRecord, text: string): Undo {
    const keys = c.keysOf(record);
    this.#refuseTaken(c, stored.scopeKey, keys, record, stored);
    const undo: Undo = { kind: 'update', collection: c, record: stored, text: stored.text, keys: [...stored.keys] };
    c.reindex(stored, keys);
    this.liveChars += text.length - stored.text.length;
    stored.text = text;
    return undo;
  }

  #refuseTaken(
    c: Collection,
    scopeKey: string,
    keys: (IndexKey | undefined)[],
    record: JsonRecord,
    self?: StoredRecord,
  ): void {
    const taken = c.takenUniqueField(scopeKey, keys, self);
    if (taken !== undefined) {
      const field = c.fields[taken]!;
      throw new DuplicateKeyError(c.name, field, String(record[field]));
    }
  }
}
