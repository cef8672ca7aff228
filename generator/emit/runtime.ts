// generated/runtime/: the hand-written runtime the generated client, router and webhook helpers call,
// copied so that generated/ is self-contained for teams that take it into their own project.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withHeader, type GeneratedFile } from './generated-file.js';

const runtimeDir = fileURLToPath(new URL('../runtime/', import.meta.url));

export function emitRuntime(): GeneratedFile[] {
  return readdirSync(runtimeDir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .sort()
    .map((name) => ({ path: `runtime/${name}`, contents: withHeader(`generator/runtime/${name}`, readFileSync(`${runtimeDir}${name}`, 'utf8')) }));
}
