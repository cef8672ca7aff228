// What the log and the request record show of a text that may carry a secret: a path with a key in its
// query, a request body a merchant pasted a token into, a callback URL with a password in it. Masked: every
// configured key and callback token, anything shaped like a secret key (another merchant's, or a wrong one:
// still someone's secret), and URL credentials.
import { maskUrlCredentials } from '../callbacks/mask-credentials.js';

export type MaskSecrets = (text: string) => string;

/** The secret keys' shape (config.ts): the prefix, then printable characters up to a delimiter. */
const KEY_SHAPE = String.raw`sk_(?:test|live)_[^\s"'&?#,;:/\\<>]*`;
const KEY_PREFIX = /^sk_(?:test|live)_/;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What replaces a secret: its `sk_test_`/`sk_live_` prefix, which says what it was without giving it away. */
const masked = (secret: string): string => `${KEY_PREFIX.exec(secret)?.[0] ?? ''}***`;

export function secretMasker(secrets: readonly string[]): MaskSecrets {
  // Longest first, so a secret that contains another is masked whole.
  const known = [...new Set(secrets.filter((secret) => secret !== ''))]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp);
  const pattern = new RegExp([...known, KEY_SHAPE].join('|'), 'g');
  return (text) => {
    pattern.lastIndex = 0;
    const withoutSecrets = pattern.test(text) ? text.replace(pattern, masked) : text;
    // Most texts carry no URL credentials: the cheap test keeps the replace off the common path.
    return withoutSecrets.includes('@') ? maskUrlCredentials(withoutSecrets) : withoutSecrets;
  };
}
