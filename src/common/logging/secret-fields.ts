/** Fields whose value is a secret wherever a log line carries them. */
const SECRET_FIELDS = [
  'authorization',
  'client_secret',
  'access_token',
  'token',
  'lock_token',
  'secret',
  'storage_location',
] as const;
const SECRET = new Set<string>(SECRET_FIELDS);

/** Headers that carry credentials, in any header set a line carries (Node's lower-case names). */
const SECRET_HEADERS = [
  'authorization',
  'cookie',
  'lock-token',
  'proxy-authorization',
  'set-cookie',
] as const;

export const CENSOR = '[redacted]';

type Fields = Record<string, unknown>;

const isPlain = (value: unknown): value is Fields => {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

const own = (value: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(value, key);

/** `fields` with those of `names` it has censored (a copy), or `fields` itself when it has none. */
function censor(fields: object, names: readonly string[]): object {
  let copy: Fields | undefined;
  for (const name of names) {
    if (!own(fields, name)) continue;
    copy ??= { ...(fields as Fields) };
    copy[name] = CENSOR;
  }
  return copy ?? fields;
}

/** A header set with its credentials censored (a copy when it had any). */
export function withoutSecretHeaders<T>(headers: T): T {
  return isPlain(headers) ? (censor(headers, SECRET_HEADERS) as T) : headers;
}

function censored(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  let clean = censor(value, SECRET_FIELDS);
  // a plain object's header set (`{ req: { headers } }`); a live request's is never logged
  if (isPlain(value) && isPlain(value['headers'])) {
    const headers = withoutSecretHeaders(value['headers']);
    if (headers !== value['headers']) clean = { ...clean, headers };
  }
  return clean;
}

/**
 * A log line's object with every secret censored: a secret field at
 * the top level or in an object at the top level (a grant, `{ grant: { client_secret } }`; a header
 * set logged on its own, `{ headers: { authorization } }`), and the credential headers of a header
 * set one level down (`{ req: { headers } }`). pino's redaction did this with paths, wildcards
 * among them (`*.token`), which ran every value of every line through its cloning redactor: 7-8 µs
 * a request line (bench/README.md, "Log redaction without the redactor"). Objects are copied only
 * when they hold a secret; the caller's are never changed.
 */
export function withoutSecrets<T extends Fields>(object: T): T {
  let out: Fields = object;
  for (const key in object) {
    if (!own(object, key)) continue;
    const value: unknown = object[key];
    let clean = SECRET.has(key) ? CENSOR : censored(value);
    // a header set logged on its own
    if (key === 'headers') clean = withoutSecretHeaders(clean);
    if (clean === value) continue;
    if (out === object) out = { ...object };
    out[key] = clean;
  }
  return out as T;
}
