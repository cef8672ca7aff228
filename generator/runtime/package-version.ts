// `--version` prints the version of the package a command ships in: the package.json nearest to the command's
// module. Today that is the repository's; once each product is a package of its own, it is that package's,
// with no change here or in the commands.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The `version` of the package.json nearest to `moduleUrl` (a command's `import.meta.url`). */
export function packageVersion(moduleUrl: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    const text = readIfPresent(file);
    if (text !== undefined) {
      const { version } = JSON.parse(text) as { version?: unknown };
      if (typeof version !== 'string' || version === '') throw new Error(`${file} has no version`);
      return version;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json in ${start} or above it`);
  }
}
