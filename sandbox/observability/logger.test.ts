import { describe, expect, it, vi } from 'vitest';
import {
  createLogger,
  linesHeldBriefly,
  type CallbackAttemptLine,
  type LogFormat,
  type LogLevel,
  type RequestLine,
} from './logger.js';
import { formatPrettyLine } from './pretty.js';

/** A logger writing into an array, one entry per line. */
function capture(
  format: LogFormat,
  level: LogLevel = 'info',
  color = false,
): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    format,
    level,
    color,
    destination: { write: (chunk: string) => void lines.push(...chunk.split('\n').filter((line) => line !== '')) },
  });
  return { logger, lines };
}

const created: RequestLine = {
  request_id: 'req_1',
  method: 'POST',
  path: '/disbursements',
  status: 200,
  error_code: null,
  duration_ms: 3.25,
};
const refused: RequestLine = {
  request_id: 'req_2',
  method: 'POST',
  path: '/disbursements',
  status: 400,
  error_code: 'API_VALIDATION_ERROR',
  duration_ms: 12.6,
};
const attempt: CallbackAttemptLine = {
  delivery_id: 'd1',
  webhook: 'disbursementFinished',
  url: 'https://merchant.example/cb',
  status: 500,
  error: null,
  attempt: 2,
  max_attempts: 3,
  duration_ms: 4,
};

describe('the log', () => {
  it('writes one JSON object per line with LOG_FORMAT=json, with the fields of a request and of a callback attempt', () => {
    const { logger, lines } = capture('json');
    logger.request(refused);
    logger.callbackAttempt(attempt);
    expect(lines).toHaveLength(2);
    const [request, callback] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(request).toMatchObject({ level: 'info', kind: 'request', ...refused });
    expect(typeof request!.time).toBe('string');
    expect(callback).toMatchObject({ level: 'warn', kind: 'callback', ...attempt });
  });

  it('writes short human lines by default: method, path, status, error code, duration, request id; kind, URL, status, attempt n of N', () => {
    const { logger, lines } = capture('pretty');
    logger.request(refused);
    logger.callbackAttempt({ ...attempt, status: null, error: 'connection refused' });
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} {2}POST \/disbursements {2}400 API_VALIDATION_ERROR {2}13 ms {2}req_2$/,
    );
    expect(lines[1]).toMatch(
      /callback disbursementFinished → https:\/\/merchant\.example\/cb {2}no answer \(connection refused\) {2}attempt 2 of 3 {2}4\.0 ms$/,
    );
  });

  it("writes a request's human line as the formatter writes it from that request's JSON line", () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-21T09:30:01.123Z'), toFake: ['Date'] });
    try {
      for (const color of [false, true]) {
        const { logger, lines } = capture('pretty', 'info', color);
        const requests = [created, refused, { ...created, status: 500, error_code: 'SERVER_ERROR' }];
        for (const line of requests) logger.request(line);
        expect(lines.map((line) => `${line}\n`)).toEqual(
          requests.map((line) =>
            formatPrettyLine(
              JSON.stringify({ level: 'info', time: '2026-11-21T09:30:01.123Z', kind: 'request', ...line }),
              color,
            ),
          ),
        );
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('stamps each human line with the millisecond it is written in', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-21T09:30:01.123Z'), toFake: ['Date'] });
    try {
      const { logger, lines } = capture('pretty');
      logger.request(created);
      logger.request(refused);
      vi.setSystemTime(Date.parse('2026-11-21T09:30:01.124Z'));
      logger.request(created);
      logger.callbackAttempt(attempt);
      expect(lines.map((line) => line.slice(0, 12))).toEqual([
        '09:30:01.123',
        '09:30:01.123',
        '09:30:01.124',
        '09:30:01.124',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('colours the status only when asked (a terminal), so a piped log has no escape codes', () => {
    const plain = capture('pretty', 'info', false);
    const coloured = capture('pretty', 'info', true);
    plain.logger.request(created);
    coloured.logger.request(created);
    expect(plain.lines[0]).not.toContain('\u001b[');
    expect(coloured.lines[0]).toContain('\u001b[32m200');
  });

  it('leaves the line per request out at LOG_LEVEL=warn, but still shows a callback the merchant refused and a server error', () => {
    const { logger, lines } = capture('json', 'warn');
    logger.request(created);
    logger.request(refused);
    logger.callbackAttempt({ ...attempt, status: 200 });
    expect(lines).toEqual([]);
    logger.callbackAttempt(attempt);
    logger.request({ ...created, status: 500, error_code: 'SERVER_ERROR' });
    expect(lines.map((line) => (JSON.parse(line) as { kind: string }).kind)).toEqual(['callback', 'request']);
  });

  it('writes nothing at LOG_LEVEL=silent', () => {
    const { logger, lines } = capture('pretty', 'silent');
    logger.request({ ...created, status: 500 });
    logger.callbackAttempt(attempt);
    logger.info('started');
    expect(lines).toEqual([]);
  });

  it('hands the lines of a brief window to stdout as one write at its end, and at once when flushed', async () => {
    const writes: string[] = [];
    let flushed = 0;
    const destination = { write: (chunk: string) => void writes.push(chunk), flushSync: () => void flushed++ };
    const stdout = linesHeldBriefly(destination, 30);
    const logger = createLogger({ format: 'pretty', level: 'info', color: false, destination: stdout });
    logger.request(created);
    await new Promise((resolve) => setTimeout(resolve, 5));
    logger.request(refused);
    expect(writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(writes).toHaveLength(1);
    expect(
      writes[0]!
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(-5)),
    ).toEqual(['req_1', 'req_2']);
    logger.request(created);
    logger.flush();
    expect(writes).toHaveLength(2);
    expect(flushed).toBe(1);
  });
});

describe('the log in a process that loads the sandbox more than once', () => {
  it('hands held lines over at exit through one listener, however many copies of the logger are loaded', async () => {
    await import('./logger.js');
    const listeners = process.listenerCount('exit');
    vi.resetModules();
    await import('./logger.js');
    vi.resetModules();
    await import('./logger.js');
    expect(process.listenerCount('exit')).toBe(listeners);
  });
});
