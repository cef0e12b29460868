import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
// the document is OpenAPI 3.1, whose schemas are JSON Schema 2020-12
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Validates webhook payloads against the committed OpenAPI document (openapi.json, kept equal to
 * the generated one by CI): the schema of the payload's `type`, with no key beyond those the
 * document lists, in the payload and in its `data`. The receivers of the e2e suites run every
 * body they get through it (`startReceiver`), so a payload the service sends that the document
 * does not describe fails the suite that caused it.
 */
interface Schema {
  properties?: Record<string, { $ref?: string }>;
  additionalProperties?: boolean;
  oneOf?: Array<{ $ref: string }>;
  discriminator?: { mapping: Record<string, string> };
}

interface OpenApi {
  components: { schemas: Record<string, Schema> };
}

const DOCUMENT = resolve(import.meta.dirname, '../../openapi.json');
const UNION = 'WebhookEvent';

let compiled: Map<string, (payload: unknown) => string | null> | null = null;

function load(): Map<string, (payload: unknown) => string | null> {
  const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as OpenApi;
  const schemas = structuredClone(doc.components.schemas);
  const union = schemas[UNION];
  if (!union?.discriminator) throw new Error(`openapi.json has no discriminated ${UNION}`);
  const nameOf = (ref: string) => ref.replace('#/components/schemas/', '');
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  // the formats the document names (date-time, int32, uri, …) are checked, not warned about one
  // by one: jest's console makes each warning slow enough to time a first delivery out
  (addFormatsModule as unknown as (a: Ajv2020) => Ajv2020)(ajv);
  const validators = new Map<string, (payload: unknown) => string | null>();
  // strict copies: a key the document does not list is drift as well
  for (const ref of Object.values(union.discriminator.mapping)) {
    const payload = schemas[nameOf(ref)]!;
    payload.additionalProperties = false;
    const data = payload.properties?.['data']?.$ref;
    if (data) schemas[nameOf(data)]!.additionalProperties = false;
  }
  ajv.addSchema({ $id: 'openapi', components: { schemas } });
  for (const [type, ref] of Object.entries(union.discriminator.mapping)) {
    const validate = ajv.compile({ $ref: `openapi${ref}` });
    validators.set(type, (payload) =>
      validate(payload) ? null : ajv.errorsText(validate.errors, { dataVar: 'payload' }),
    );
  }
  return validators;
}

/** The event types the document describes. */
export function documentedEventTypes(): string[] {
  compiled ??= load();
  return [...compiled.keys()];
}

/** Null when `body` is a payload the document describes; else what is wrong with it. */
export function payloadProblem(body: string): string | null {
  compiled ??= load();
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return 'the body is not JSON';
  }
  const type = (payload as { type?: unknown } | null)?.type;
  const validate = typeof type === 'string' ? compiled.get(type) : undefined;
  if (!validate) return `no schema for event type ${JSON.stringify(type)}`;
  return validate(payload);
}
