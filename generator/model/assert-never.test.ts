// A kind added to a union of the model fails to compile wherever a switch over that union ends in assertNever
// without handling it: shown by compiling the model's own types with one more kind of error trigger, both an
// exhaustive consumer written here and the model's reader of x-error-triggers.
import { readFileSync } from 'node:fs';
import { Project, ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { assertNever, ERROR_TRIGGER_KINDS } from './read-model.js';

const source = (name: string): string => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
const ADDED_KIND = `  | TestModeTrigger
  | (TriggerCommon & { when: 'new_kind' });`;

/** The compiler's errors, as `file: message`, for the model's types (with one more kind if asked) and `files`. */
function compile(files: Record<string, string>, addKind: boolean): string[] {
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts'],
      noEmit: true,
    },
  });
  const types = source('types.ts');
  if (!types.includes('  | TestModeTrigger;')) throw new Error('types.ts: the ErrorTrigger union no longer ends here');
  project.createSourceFile('/m/types.ts', addKind ? types.replace('  | TestModeTrigger;', ADDED_KIND) : types);
  project.createSourceFile('/m/assert-never.ts', source('assert-never.ts'));
  for (const [name, text] of Object.entries(files)) project.createSourceFile(`/m/${name}`, text);
  return project
    .getPreEmitDiagnostics()
    .map(
      (d) =>
        `${d.getSourceFile()?.getBaseName()}: ${ts.flattenDiagnosticMessageText(d.getMessageText() as string, ' ')}`,
    );
}

/** A consumer with one case per kind the model has today, ending in assertNever. */
const consumer = `import { assertNever } from './assert-never.js';
import type { ErrorTrigger } from './types.js';
export function describeTrigger(trigger: ErrorTrigger): string {
  switch (trigger.when) {
${ERROR_TRIGGER_KINDS.map((kind) => `    case '${kind}':`).join('\n')}
      return trigger.description;
    default:
      return assertNever(trigger);
  }
}
`;

describe('assertNever', () => {
  it('an exhaustive switch over the error trigger kinds compiles', () => {
    expect(compile({ 'consumer.ts': consumer }, false)).toEqual([]);
  });

  it('the same switch does not compile once the union has a kind it does not handle', () => {
    const errors = compile({ 'consumer.ts': consumer }, true);
    expect(errors).toEqual([expect.stringMatching(/^consumer\.ts: .*new_kind.* is not assignable to .*never/)]);
  });

  it('the model’s reader of x-error-triggers does not compile either until it reads the new kind', () => {
    const files = { 'error-triggers.ts': source('error-triggers.ts') };
    expect(compile(files, false)).toEqual([]);
    const errors = compile(files, true);
    // The list of kinds misses it, and the reader's switch does not handle it.
    expect(errors).toContainEqual(expect.stringMatching(/^error-triggers\.ts: .*new_kind/));
    expect(errors).toContainEqual(expect.stringMatching(/^error-triggers\.ts: .*not assignable to .*never/));
  });

  it('throws, naming the value, where a value the types exclude arrives anyway', () => {
    expect(() => assertNever('new_kind' as never, 'trigger kind')).toThrow('unhandled trigger kind "new_kind"');
  });
});
