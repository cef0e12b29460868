/**
 * Every secret an e2e suite handles (client secrets, tokens, PATs, lock tokens, webhook secrets,
 * storage locations) is remembered here, and each test app checks at close that none of them
 * reached its captured log lines. The check covers every suite without each having to ask.
 */
const secrets = new Set<string>();

const SECRET_FIELDS = new Set([
  'client_secret',
  'clientSecret',
  'access_token',
  'token',
  'lock_token',
  'secret',
  'storage_location',
  'lock-token',
  'authorization',
]);
const SECRET_SHAPES = /\b(?:gcs|gat|gpat|glk)_[0-9A-Za-z]{49}\b|whsec_[A-Za-z0-9+/]{43}=/g;

export function rememberSecret(value: string | null | undefined): void {
  if (value && value.length >= 8) secrets.add(value);
}

/** Remembers secret-looking strings and the values of secret-named fields anywhere in `value`. */
export function rememberSecretsIn(value: unknown, depth = 0): void {
  if (depth > 8 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    for (const m of value.matchAll(SECRET_SHAPES)) rememberSecret(m[0]);
    // HTTP Basic carries a client secret in base64, which no shape above matches
    const basic = /^Basic\s+([A-Za-z0-9+/=]{8,})$/i.exec(value);
    if (basic) rememberSecret(basic[1]);
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) rememberSecretsIn(v, depth + 1);
    return;
  }
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (SECRET_FIELDS.has(k) && typeof v === 'string') rememberSecret(v);
      rememberSecretsIn(v, depth + 1);
    }
  }
}

function mask(secret: string): string {
  return `${secret.slice(0, 8)}…(${secret.length} chars)`;
}

/** The remembered secrets that occur in the log lines, masked for the failure message. */
export function leakedSecrets(logs: readonly string[]): string[] {
  const text = logs.join('\n');
  return [...secrets].filter((s) => text.includes(s)).map(mask);
}

export function secretsRemembered(): number {
  return secrets.size;
}

/**
 * `secret` with its last character changed: a wrong secret of the right shape. Always another
 * character — replacing it with a fixed one gave the real secret back whenever it already ended
 * in that character (1 time in 62).
 */
export function tampered(secret: string): string {
  return `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
}
