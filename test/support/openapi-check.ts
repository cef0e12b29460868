import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Every answer the e2e suites receive through `call()` is checked against the published OpenAPI
 * documents: its status must be one the operation documents, each of its headers must be one the
 * answer documents (but HTTP's own, `TRANSPORT_HEADERS`) and match its schema, and its body must
 * match the schema of its media type with no field the schema does not name (object schemas are read as closed here: the documents leave responses open so
 * that clients tolerate fields added later, but the service must not send an undocumented one).
 * A request the service accepted (2xx) must be valid by the document too, and one it refused as
 * `validation_failed` must be invalid by it, unless every error the service gave is one the
 * document cannot express (`SEMANTIC`).
 */

type Json = Record<string, any>;

const root = join(import.meta.dirname, '..', '..');
const DOCUMENTS: Array<{ prefix: string; id: string; doc: Json }> = [
  { prefix: '/api/v1/', id: 'https://grc.test/openapi.json', doc: load('openapi.json') },
  {
    prefix: '/platform/v1/',
    id: 'https://grc.test/platform.json',
    doc: load('openapi.platform.json'),
  },
];

/** ajv's `discriminator` takes the property name and finds each branch's value itself. */
function load(file: string): Json {
  return JSON.parse(readFileSync(join(root, file), 'utf8'), (key, value: unknown) =>
    key === 'discriminator' ? { propertyName: (value as Json).propertyName } : value,
  ) as Json;
}

/** The component names a document refers to from inside an `allOf` (its parts, at any depth). */
function composedParts(doc: unknown, inAllOf = false, out = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) for (const v of doc) composedParts(v, inAllOf, out);
  else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) {
      if (k === '$ref' && inAllOf && typeof v === 'string') out.add(v.split('/').pop()!);
      else composedParts(v, inAllOf || k === 'allOf', out);
    }
  }
  return out;
}

/**
 * Closes every object schema that names its properties and says nothing of others. A part of an
 * `allOf` stays open (its siblings evaluate the other properties); the `allOf` is closed instead,
 * and `unevaluatedProperties` there sees what every part evaluated.
 */
function closed(
  schema: unknown,
  open: ReadonlySet<string> = new Set(),
  name = '',
  part = false,
): unknown {
  if (Array.isArray(schema)) return schema.map((v) => closed(v, open, '', part));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] = k === 'example' || k === 'examples' ? v : closed(v, open, '', k === 'allOf');
  }
  const closable = out.allOf || (out.properties && !part && !open.has(name));
  if (closable && !('additionalProperties' in out) && !('unevaluatedProperties' in out)) {
    out.unevaluatedProperties = false;
  }
  return out;
}

function closedComponents(doc: Json): Json {
  const open = composedParts(doc);
  const schemas = Object.fromEntries(
    Object.entries((doc.components?.schemas ?? {}) as Json).map(([n, v]) => [
      n,
      closed(v, open, n),
    ]),
  );
  return { ...doc.components, schemas };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({
  strict: false,
  allErrors: true,
  validateFormats: true,
  discriminator: true,
});
addFormats(ajv);
const strictAjv = new Ajv2020({
  strict: false,
  allErrors: true,
  validateFormats: true,
  discriminator: true,
});
addFormats(strictAjv);
for (const { id, doc } of DOCUMENTS) {
  // requests against the document as published, answers against its closed reading
  ajv.addSchema({ $id: id, components: doc.components }, id);
  strictAjv.addSchema({ $id: id, components: closedComponents(doc) }, id);
}

const compiled = new Map<string, ValidateFunction>();

function validator(engine: Ajv2020, id: string, schema: unknown, key: string): ValidateFunction {
  const cacheKey = `${engine === ajv ? 'req' : 'res'} ${key}`;
  let fn = compiled.get(cacheKey);
  if (!fn) {
    // a schema that refers to components resolves them in its document
    const own = engine === strictAjv ? closed(schema) : schema;
    const rebased = JSON.parse(
      JSON.stringify(own).replaceAll('"#/components/', `"${id}#/components/`),
    );
    fn = engine.compile(rebased as object);
    compiled.set(cacheKey, fn);
  }
  return fn;
}

interface Match {
  id: string;
  doc: Json;
  template: string;
  operation: Json;
  params: Record<string, string>;
}

/** Which document each listening test server serves, by origin (`startTestApp` registers them). */
const servers = new Map<string, 'integration' | 'platform'>();

export function registerServer(baseUrl: string, api: 'integration' | 'platform'): void {
  servers.set(new URL(baseUrl).origin, api);
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The document whose prefix the URL is under, as its server serves it (see `findOperation`). */
function documentOf(url: URL): (typeof DOCUMENTS)[number] | undefined {
  const api = servers.get(url.origin);
  return DOCUMENTS.find(
    (x) =>
      url.pathname.startsWith(x.prefix) &&
      (api === undefined || (api === 'platform') === (x.prefix === '/platform/v1/')),
  );
}

function findOperation(method: string, url: URL): Match | undefined {
  // a server serves its own document only: the other one's paths are unknown routes there
  const d = documentOf(url);
  if (!d) return undefined;
  // the service ignores a trailing slash, and answers HEAD wherever it answers GET
  const pathname =
    url.pathname.length > d.prefix.length ? url.pathname.replace(/\/$/, '') : url.pathname;
  const candidates: Match[] = [];
  for (const [template, item] of Object.entries(d.doc.paths as Json)) {
    const names: string[] = [];
    const pattern = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const m = new RegExp(`^${pattern}$`).exec(pathname);
    const operation = ((item as Json)[method.toLowerCase()] ??
      (method === 'HEAD' ? (item as Json).get : undefined)) as Json | undefined;
    if (!m || !operation) continue;
    const values = names.map((_, i) => decoded(m[i + 1] ?? ''));
    // not valid percent-encoding: no operation's parameter, the service refuses it before routing
    if (values.some((v) => v === undefined)) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, values[i]!]));
    candidates.push({ id: d.id, doc: d.doc, template, operation, params });
  }
  // a literal segment wins over a template one
  return candidates.sort((a, b) => Object.keys(a.params).length - Object.keys(b.params).length)[0];
}

function fail(what: string, match: Match, method: string, detail: unknown): never {
  throw new Error(
    `OpenAPI: ${what} (${method} ${match.template} ${match.operation.operationId}): ${JSON.stringify(detail, null, 1).slice(0, 4000)}`,
  );
}

function scalar(schema: Json | undefined, value: string): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value))
    return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function checkRequest(
  match: Match,
  method: string,
  url: URL,
  body: unknown,
  key: string,
  headers: Record<string, string> = {},
): void {
  const sent = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const p of (match.operation.parameters ?? []) as Json[]) {
    const schema = p.schema as Json | undefined;
    if (!schema) continue;
    let values: unknown[] = [];
    if (p.in === 'path') values = [scalar(schema, match.params[p.name] ?? '')];
    else if (p.in === 'query') {
      const all = url.searchParams.getAll(p.name);
      if (all.length === 0) continue;
      values =
        schema.type === 'array'
          ? // repeated (the document's form style) or comma-separated, as the service reads them
            [all.flatMap((v) => v.split(',')).map((v) => scalar(schema.items, v))]
          : all.map((v) => scalar(schema, v));
    } else if (p.in === 'header') {
      const value = sent.get(String(p.name).toLowerCase());
      if (value === undefined) continue;
      values = [scalar(schema, value)];
    } else continue;
    const fn = validator(ajv, match.id, schema, `${key} param ${p.name}`);
    for (const v of values)
      if (!fn(v))
        fail(
          `accepted ${p.in} parameter ${p.name} is invalid by the document`,
          match,
          method,
          fn.errors,
        );
  }
  const schema = match.operation.requestBody?.content?.['application/json']?.schema;
  if (schema && body !== undefined) {
    const fn = validator(ajv, match.id, schema, `${key} body`);
    if (!fn(body))
      fail('accepted request body is invalid by the document', match, method, fn.errors);
  }
}

/**
 * What HTTP itself puts on an answer (its framing, the connection, the date): no document lists
 * them. The media type is checked with the body.
 */
const TRANSPORT_HEADERS = new Set([
  'connection',
  'content-length',
  'content-type',
  'date',
  'keep-alive',
  'transfer-encoding',
]);

/** A response's header object, its `$ref` to `components.headers` followed. */
function headerObject(match: Match, header: Json): Json {
  const ref = /^#\/components\/headers\/(.+)$/.exec(String(header.$ref ?? ''));
  if (!ref) return header;
  const found = (match.doc.components?.headers as Json | undefined)?.[ref[1]!] as Json | undefined;
  if (!found) throw new Error(`OpenAPI: ${String(header.$ref)} is not in the document`);
  return found;
}

function checkHeaders(
  match: Match,
  method: string,
  response: Json,
  headers: Headers,
  key: string,
): void {
  const documented = new Map<string, Json>(
    Object.entries((response.headers ?? {}) as Json).map(([name, header]) => [
      name.toLowerCase(),
      headerObject(match, header as Json),
    ]),
  );
  const undocumented: string[] = [];
  headers.forEach((_value, name) => {
    if (!documented.has(name) && !TRANSPORT_HEADERS.has(name)) undocumented.push(name);
  });
  if (undocumented.length > 0)
    fail(`undocumented ${key} header ${undocumented.join(', ')}`, match, method, {});
  for (const [name, header] of documented) {
    const value = headers.get(name);
    if (value === null) {
      if (header.required) fail(`required header ${name} is missing`, match, method, {});
      continue;
    }
    if (!header.schema) continue;
    const fn = validator(strictAjv, match.id, header.schema, `${key} header ${name}`);
    if (!fn(scalar(header.schema, value)))
      fail(`header ${name} does not match`, match, method, fn.errors);
  }
}

export interface CheckedExchange {
  method: string;
  url: string;
  /** The request body as JSON; undefined when none was sent or it is not JSON. */
  requestBody: unknown;
  /** The request body as sent, when one was. */
  requestText?: string;
  requestHeaders?: Record<string, string>;
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/**
 * The refusals (`validation_failed` errors, by field and message) no OpenAPI schema can express:
 * they depend on stored state, on what a value means, or on what the document leaves open.
 */
const SEMANTIC: ReadonlyArray<readonly [field: RegExp, message: RegExp]> = [
  // a query is open in OpenAPI: nothing says "no other parameter"
  [/.*/, /^is not a query parameter of this route$/],
  // an opaque cursor is valid for one list, tenant and filter set only
  [/^(cursor|after|Last-Event-ID)$/, /^is not a cursor of /],
  [/^offset$/, /^cannot be combined with cursor/],
  // what a URL points at (scheme, private networks, …), beyond its syntax
  [/^endpoint_url$/, /^endpoint_url /],
  // the stored state: versions, a document that exists or not
  [/^base_version_id$/, /^is not a version of this document$/],
  [/^content$/, /^is required when the document is created$/],
  // a day that does not exist (2026-02-30) matches the date pattern
  [/^(since|until)$/, /^is not a valid date or date-time$/],
  // limits of a JSON document as a whole: depth, total values, characters PostgreSQL cannot store
  [/.*/, /^must not (be nested deeper than|hold more than) /],
  [/.*/, /must not contain the NUL character/],
  [/.*/, /^must be valid Unicode: /],
  // a number a 64-bit float cannot keep as sent (JSON Schema has no precision)
  [/.*/, /cannot keep exactly/],
  [/.*/, /^must be a finite number within the range of a double$/],
  // a length in bytes of UTF-8 (JSON Schema counts characters)
  [/.*/, /bytes of UTF-8$/],
  // a CIDR's syntax and meaning; one entitlement named in two lists of a change
  [/^allowed_ips/, /^not a CIDR /],
  [/^entitlements\./, / is already named in /],
  [/^If-Match$/, /./],
];

/** Why the document refuses the request as sent, or null when it accepts it. */
function documentRefuses(match: Match, x: CheckedExchange, url: URL, key: string): string | null {
  const sent = new Map(
    Object.entries(x.requestHeaders ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );
  for (const p of (match.operation.parameters ?? []) as Json[]) {
    if (!p.required) continue;
    const present =
      p.in === 'query'
        ? url.searchParams.has(p.name)
        : p.in === 'header'
          ? sent.has(String(p.name).toLowerCase())
          : true;
    if (!present) return `required ${p.in} parameter ${p.name} missing`;
  }
  for (const p of (match.operation.parameters ?? []) as Json[]) {
    // the form style takes one value for a parameter that is not an array
    if (
      p.in === 'query' &&
      p.schema?.type !== 'array' &&
      url.searchParams.getAll(p.name).length > 1
    )
      return `query parameter ${p.name} repeated`;
    // read strictly (explode: each value one item), a comma-separated value is one item
    if (p.in === 'query' && p.schema?.type === 'array' && p.schema.items) {
      const item = validator(ajv, match.id, p.schema.items, `${key} param ${p.name} item`);
      const raw = url.searchParams.getAll(p.name);
      if (raw.some((v) => !item(scalar(p.schema.items as Json, v))))
        return `query parameter ${p.name} has an invalid item`;
    }
  }
  const requestBody = match.operation.requestBody as Json | undefined;
  const hasBody = x.requestText !== undefined && x.requestText !== '';
  if (hasBody && !requestBody) return 'a body where the operation takes none';
  if (!hasBody && requestBody?.required) return 'no body where one is required';
  if (hasBody && requestBody) {
    const type = (sent.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!(type in (requestBody.content ?? {}))) return `an undocumented body type ${type}`;
    if (type.endsWith('json') && x.requestBody === undefined) return 'a body that is not JSON';
  }
  try {
    checkRequest(match, x.method, url, x.requestBody, key, x.requestHeaders);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A `validation_failed` refusal of a request the document accepts fails, unless `SEMANTIC`. */
function checkRefusal(match: Match, x: CheckedExchange, url: URL, key: string): void {
  const errors = ((x.body as Json | null)?.errors ?? []) as Array<{
    field?: string;
    message?: string;
  }>;
  const semantic = (e: { field?: string; message?: string }) =>
    SEMANTIC.some(([field, message]) => field.test(e.field ?? '') && message.test(e.message ?? ''));
  if (errors.length > 0 && errors.every(semantic)) return;
  if (documentRefuses(match, x, url, key) !== null) return;
  fail('the service refused as validation_failed a request the document accepts', match, x.method, {
    query: url.search,
    body: x.requestBody,
    errors,
  });
}

/**
 * The paths under a document's prefix that serve the document itself (Swagger UI, the JSON and
 * YAML), not an operation of it.
 */
const SELF_DESCRIBING = /^\/(api|platform)\/v1\/(docs(\/.*)?|openapi\.(json|yaml))$/;

/**
 * Throws when the exchange breaks the document (see the module comment). A path outside the
 * documents' prefixes (`/health`, `/metrics`) is left alone; under them, a success of a path or
 * method the document does not list fails (an error answer of one is the service refusing it).
 */
export function checkAgainstDocument(x: CheckedExchange): void {
  const url = new URL(x.url);
  const match = findOperation(x.method, url);
  if (!match) {
    if (x.status >= 200 && x.status < 300 && documentOf(url) && !SELF_DESCRIBING.test(url.pathname))
      throw new Error(
        `OpenAPI: ${x.status} for ${x.method} ${url.pathname}, an operation the document does not list`,
      );
    return;
  }
  const key = `${x.method} ${match.template}`;
  const responses = match.operation.responses as Json;
  const response = (responses[String(x.status)] ??
    responses[`${String(x.status)[0]}XX`] ??
    responses.default) as Json | undefined;
  if (!response) fail(`undocumented status ${x.status}`, match, x.method, x.body);
  if (x.status >= 200 && x.status < 300) {
    checkRequest(match, x.method, url, x.requestBody, key, x.requestHeaders);
  }
  if (x.status === 400 && (x.body as Json | null)?.code === 'validation_failed') {
    checkRefusal(match, x, url, key);
  }
  checkHeaders(match, x.method, response, x.headers, `${key} ${x.status}`);
  if (x.method === 'HEAD') return;
  const content = (response.content ?? {}) as Json;
  if (x.text === '') {
    const bodies = Object.keys(content);
    if (bodies.length > 0)
      fail(`empty ${x.status} body, documented as ${bodies.join(', ')}`, match, x.method, {});
    return;
  }
  const mediaType = (x.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const documented = content[mediaType] as Json | undefined;
  if (!documented)
    fail(
      `undocumented body of ${mediaType || 'no media type'} for ${x.status}`,
      match,
      x.method,
      Object.keys(content),
    );
  if (!documented.schema || !mediaType.endsWith('json')) return;
  const fn = validator(strictAjv, match.id, documented.schema, `${key} ${x.status} ${mediaType}`);
  if (!fn(x.body)) fail(`${x.status} body does not match its schema`, match, x.method, fn.errors);
}

/**
 * Checks the status and headers of an answer whose body is a stream read as it comes (Server-Sent
 * Events), against the document as `checkAgainstDocument` does; a path outside the documents is
 * left alone.
 */
export function checkStreamHead(
  method: string,
  url: string,
  status: number,
  headers: Headers,
): void {
  const match = findOperation(method, new URL(url));
  if (!match) return;
  const responses = match.operation.responses as Json;
  const response = (responses[String(status)] ?? responses.default) as Json | undefined;
  if (!response) fail(`undocumented status ${status}`, match, method, {});
  checkHeaders(match, method, response, headers, `${method} ${match.template} ${status}`);
}

/**
 * Why the document refuses a request (its parameters, headers and JSON body), or null when it
 * accepts it: for the negative cases the service must refuse alike.
 */
export function documentRefusal(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): string | null {
  const parsed = new URL(url);
  const match = findOperation(method, parsed);
  if (!match) throw new Error(`no operation ${method} ${parsed.pathname} in the documents`);
  try {
    checkRequest(match, method, parsed, body, `${method} ${match.template}`, headers);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
