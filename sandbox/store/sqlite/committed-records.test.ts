import { describe, expect, it } from 'vitest';
import { CommittedRecords, recordKey } from './committed-records.js';

const key = (id: string, merchant = 'm-a') => recordKey('things', merchant, 'test', id);

describe('CommittedRecords', () => {
  it('applies a group’s writes to the records it holds when the group commits, not before', () => {
    const cache = new CommittedRecords(10);
    cache.remember(key('1'), '{"v":0}');
    cache.written(key('1'), '{"v":1}');
    cache.workDone();
    expect(cache.record(key('1'))).toEqual({ v: 0 });
    cache.committed();
    expect(cache.record(key('1'))).toEqual({ v: 1 });
  });

  it('does not take in records that were written but never read', () => {
    const cache = new CommittedRecords(10);
    cache.written(key('1'), '{"v":1}');
    cache.workDone();
    cache.committed();
    expect(cache.record(key('1'))).toBeUndefined();
  });

  it('drops the writes of undone work and of an abandoned group', () => {
    const cache = new CommittedRecords(10);
    cache.remember(key('1'), '{"v":1}');
    cache.written(key('1'), '{"v":2}');
    cache.workUndone();
    cache.written(key('2'), '{"v":2}');
    cache.workDone();
    cache.abandoned();
    cache.committed();
    expect(cache.record(key('1'))).toEqual({ v: 1 });
    expect(cache.record(key('2'))).toBeUndefined();
  });

  it('forgets a deleted record when the delete commits, not before', () => {
    const cache = new CommittedRecords(10);
    cache.remember(key('1'), '{"v":"a"}');
    cache.deleted(key('1'));
    cache.workDone();
    expect(cache.record(key('1'))).toEqual({ v: 'a' });
    cache.committed();
    expect(cache.record(key('1'))).toBeUndefined();
  });

  it('clears a scope when the clearing commits, leaving other scopes', () => {
    const cache = new CommittedRecords(10);
    cache.remember(key('1'), '{"v":"a"}');
    cache.remember(key('1', 'm-b'), '{"v":"b"}');
    cache.scopeCleared('m-a', 'test');
    cache.workDone();
    cache.committed();
    expect(cache.record(key('1'))).toBeUndefined();
    expect(cache.record(key('1', 'm-b'))).toEqual({ v: 'b' });
  });

  it('gives a record parsed and frozen, the same object at every read until a commit changes it', () => {
    const cache = new CommittedRecords(10);
    cache.remember(key('1'), '{"v":1,"tags":["a"]}');
    const first = cache.record(key('1'));
    expect(first).toEqual({ v: 1, tags: ['a'] });
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.tags)).toBe(true);
    expect(cache.record(key('1'))).toBe(first);
    cache.written(key('1'), '{"v":2}');
    cache.workDone();
    expect(cache.record(key('1'))).toBe(first);
    cache.committed();
    expect(cache.record(key('1'))).toEqual({ v: 2 });
    expect(cache.record(key('2'))).toBeUndefined();
  });

  it('keeps at most its capacity, forgetting the least recently used first', () => {
    const cache = new CommittedRecords(2);
    cache.remember(key('1'), '{"v":1}');
    cache.remember(key('2'), '{"v":2}');
    // Reading 1 makes 2 the least recently used.
    expect(cache.record(key('1'))).toEqual({ v: 1 });
    cache.remember(key('3'), '{"v":3}');
    expect(cache.record(key('2'))).toBeUndefined();
    expect(cache.record(key('1'))).toEqual({ v: 1 });
    expect(cache.record(key('3'))).toEqual({ v: 3 });
  });
});
