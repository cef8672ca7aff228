import { describe, expect, it } from 'vitest';
import { rateLimitedAnswer, rateLimitHeaders } from './limit-answers.js';

describe('rate limit answers', () => {
  it('429: RATE_LIMIT_EXCEEDED and a message in a JSON body, Retry-After and the three RateLimit headers', () => {
    const answer = rateLimitedAnswer({ limit: 60, remaining: 0, resetSeconds: 12, retryAfterSeconds: 12 });
    expect(answer.status).toBe(429);
    expect(answer.headers).toEqual({
      'content-type': 'application/json',
      'retry-after': '12',
      'ratelimit-limit': '60',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '12',
    });
    expect(JSON.parse(String(answer.body))).toEqual({
      error_code: 'RATE_LIMIT_EXCEEDED',
      message: 'Too many requests. Send this request again in 12 seconds.',
    });
  });

  it('takes its message from the caller when given', () => {
    const answer = rateLimitedAnswer({
      limit: 60,
      remaining: 0,
      resetSeconds: 1,
      retryAfterSeconds: 1,
      message: 'Slow down.',
    });
    expect(JSON.parse(String(answer.body))).toEqual({ error_code: 'RATE_LIMIT_EXCEEDED', message: 'Slow down.' });
  });

  it.each([
    [
      'a fraction of a second is rounded up',
      { limit: 10, remaining: 0, resetSeconds: 0.2, retryAfterSeconds: 0.2 },
      { 'retry-after': '1', 'ratelimit-reset': '1' },
    ],
    [
      'a retry is never asked for sooner than a second',
      { limit: 10, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 },
      { 'retry-after': '1', 'ratelimit-reset': '0' },
    ],
    [
      'seconds are whole',
      { limit: 10, remaining: 0, resetSeconds: 2.5, retryAfterSeconds: 2.5 },
      { 'retry-after': '3', 'ratelimit-reset': '3' },
    ],
  ])('header values are whole numbers: %s', (_what, state, expected) => {
    expect(rateLimitedAnswer(state).headers).toMatchObject(expected);
  });

  it('gives the RateLimit headers alone for answers that are not refusals', () => {
    expect(rateLimitHeaders({ limit: 100, remaining: 41, resetSeconds: 30 })).toEqual({
      'ratelimit-limit': '100',
      'ratelimit-remaining': '41',
      'ratelimit-reset': '30',
    });
    expect(rateLimitHeaders({ limit: 100, remaining: -3, resetSeconds: -1 })).toEqual({
      'ratelimit-limit': '100',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '0',
    });
  });
});
