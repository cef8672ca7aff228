// The generator benchmark behind `npm run bench:generator` (bench.ts reads the command line and loads this only
// to run it, so --help and --version answer without loading ajv, the generator and the validators). Prints
//   1. the wall time of a full `npm run generate` (median of several runs; target: under 10 s), and
//   2. validations per second of the generated (standalone) validator of a fixed virtual account response,
//      against ajv compiling the same schema at run time with the same options, measured side by side
//      (target: the compiled validator at least as fast).
// Figures, not assertions: machines are shared and noisy, so nothing here fails a build.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { operationValidators } from '@payments-contract/server/validators';
import type { Validator } from './runtime/validator.js';
import { readBundle } from './generate.js';
import { median } from '@payments-contract/conformance/testing';
import type { Json, JsonObject } from './model/types.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const GENERATE_RUNS = Number(process.env.BENCH_GENERATE_RUNS ?? 5);
const VALIDATION_MS = Number(process.env.BENCH_VALIDATION_MS ?? 1500);
const ROUNDS = 3;

function timeGenerate(): number[] {
  const times: number[] = [];
  for (let run = 0; run < GENERATE_RUNS; run++) {
    const started = performance.now();
    const result = spawnSync('npm', ['run', '--silent', 'generate'], { cwd: repoRoot, stdio: 'pipe' });
    if (result.status !== 0) throw new Error(`npm run generate failed:\n${result.stderr.toString()}`);
    times.push(performance.now() - started);
  }
  return times;
}

/** The documented examples of the FVA get response, plus one invalid copy, so both paths are exercised. */
function fvaSamples(doc: JsonObject): Json[] {
  const media = (
    (
      (((doc.paths as JsonObject)['/callback_virtual_accounts/{id}'] as JsonObject).get as JsonObject)
        .responses as JsonObject
    )['200'] as JsonObject
  ).content as JsonObject;
  const examples = ((media['application/json'] as JsonObject).examples ?? {}) as JsonObject;
  const values = Object.values(examples).map((example) => (example as JsonObject).value as Json);
  const invalid = { ...(values[0] as JsonObject), merchant_code: 12 };
  return [...values, invalid];
}

function runtimeValidator(doc: JsonObject): Validator {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
  // Same options as the generator compiles with.
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi' });
  return ajv.compile({
    $ref: 'openapi#/paths/~1callback_virtual_accounts~1%7Bid%7D/get/responses/200/content/application~1json/schema',
  });
}

function validationsPerSecond(validate: Validator, samples: Json[], durationMs: number): number {
  let count = 0;
  const deadline = performance.now() + durationMs;
  const started = performance.now();
  while (performance.now() < deadline) {
    for (let i = 0; i < 1000; i++) validate(samples[i % samples.length]);
    count += 1000;
  }
  return count / ((performance.now() - started) / 1000);
}

/** Runs the benchmark and prints its figures; the command line was read by bench.ts. */
export function benchGenerator(): number {
  const doc = readBundle();
  const samples = fvaSamples(doc);
  const runtime = runtimeValidator(doc);
  const compiled: Validator = operationValidators.getFixedVirtualAccount.responses[200];
  for (const sample of samples) {
    if (runtime(sample) !== compiled(sample))
      throw new Error('the two validators disagree; the comparison would be meaningless');
  }

  // Alternate the two in rounds so drift in machine load hits both alike.
  const compiledRates: number[] = [];
  const runtimeRates: number[] = [];
  validationsPerSecond(compiled, samples, 200);
  validationsPerSecond(runtime, samples, 200);
  for (let round = 0; round < ROUNDS; round++) {
    compiledRates.push(validationsPerSecond(compiled, samples, VALIDATION_MS));
    runtimeRates.push(validationsPerSecond(runtime, samples, VALIDATION_MS));
  }
  const generateTimes = timeGenerate();

  const compiledRate = median(compiledRates);
  const runtimeRate = median(runtimeRates);
  const generateMedian = median(generateTimes);
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  console.log('generator benchmark');
  console.table({
    'npm run generate': {
      figure: `${(generateMedian / 1000).toFixed(2)} s median of ${GENERATE_RUNS}`,
      target: '< 10 s',
      met: generateMedian < 10_000,
    },
    'compiled validator (FVA response)': {
      figure: `${fmt(compiledRate)} validations/s`,
      target: '>= run-time ajv',
      met: compiledRate >= runtimeRate,
    },
    'run-time ajv, same schema': { figure: `${fmt(runtimeRate)} validations/s`, target: 'peer', met: '' },
    'compiled / run-time': {
      figure: `${(compiledRate / runtimeRate).toFixed(2)}x`,
      target: '>= 1.00x',
      met: compiledRate >= runtimeRate,
    },
  });
  console.log(`generate runs (ms): ${generateTimes.map((t) => Math.round(t)).join(', ')}`);
  return 0;
}
