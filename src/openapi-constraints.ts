import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject, ReferenceObject } from '@nestjs/swagger';
import { MAX_BIG_ID, MAX_ID } from './common/http/params.js';
import { documentResponseHeaders } from './openapi-headers.js';
import {
  applyRouteArgs,
  handlerArgs,
  operations,
  type OperationIdFactory,
} from './openapi-route-args.js';
import {
  applyValidators,
  integerFormat,
  retype,
  type Schema,
  typesOf,
} from './openapi-validators.js';

export type { OperationIdFactory } from './openapi-route-args.js';

/**
 * Makes a generated document say what the service enforces, from the same sources the service
 * enforces it with, so the two cannot drift:
 * - every schema of a class the validation pipe checks takes the class-validator constraints of its
 *   properties (types, lengths, counts, ranges, patterns, enums), replacing hand-written ones;
 * - every query parameter takes the constraints of the `@Query()` DTO property it comes from, the
 *   same class-validator constraints the pipe checks it with;
 * - every request body is closed (`additionalProperties: false`): the pipe refuses unknown fields;
 * - a path id takes the schema of the pipe that parses it (`ParseIdPipe`: int32 1..2147483647,
 *   `ParseBigIdPipe`: int64 1..2^53-1); an id field of a response is int32 1..2147483647 (a
 *   `serial` column) unless its DTO says `format: 'int64'` (a `bigserial` one: 1..2^53-1); no
 *   other field may stay a bare `number`: a DTO says `type: 'integer'`.
 */

const refName = (s: unknown): string | undefined =>
  s && typeof s === 'object' && '$ref' in s
    ? String((s as ReferenceObject).$ref).replace('#/components/schemas/', '')
    : undefined;

/** The component schemas a schema reaches through `$ref`, `items` and compositions. */
function reachable(schema: unknown, schemas: Record<string, Schema>, seen: Set<string>): void {
  if (!schema || typeof schema !== 'object') return;
  const name = refName(schema);
  if (name) {
    if (seen.has(name)) return;
    seen.add(name);
    reachable(schemas[name], schemas, seen);
    return;
  }
  const s = schema as Schema;
  for (const child of [
    ...Object.values(s.properties ?? {}),
    s.items,
    ...(s.allOf ?? []),
    ...(s.oneOf ?? []),
    ...(s.anyOf ?? []),
  ]) {
    reachable(child, schemas, seen);
  }
}

/** The pipe's `forbidNonWhitelisted`: an unknown field of a request body (at any depth) is a 400. */
function closeRequestBodies(document: OpenAPIObject, schemas: Record<string, Schema>): void {
  const seen = new Set<string>();
  for (const operation of operations(document)) {
    const body = operation.requestBody;
    if (!body || '$ref' in body) continue;
    for (const media of Object.values(body.content)) reachable(media.schema, schemas, seen);
  }
  for (const name of seen) {
    const schema = schemas[name];
    if (schema?.properties) schema.additionalProperties = false;
  }
}

const ID_NAME = /(^|_)id$|Id$/;

/** Id fields are 1..2147483647, or 1..2^53-1 where the DTO says int64; no field stays `number`. */
function integerIds(schemas: Record<string, Schema>): void {
  const bare: string[] = [];
  for (const [name, schema] of Object.entries(schemas)) {
    for (const [property, raw] of Object.entries(schema.properties ?? {})) {
      const s = raw as Schema;
      const types = typesOf(s);
      if (ID_NAME.test(property) && (types.includes('number') || types.includes('integer'))) {
        retype(s, 'integer');
        Object.assign(
          s,
          s.format === 'int64'
            ? { format: 'int64', minimum: 1, maximum: MAX_BIG_ID }
            : { format: 'int32', minimum: 1, maximum: MAX_ID },
        );
      } else if (types.includes('number')) {
        bare.push(`${name}.${property}`);
      } else if (types.includes('integer') && !s.format) {
        integerFormat(s);
      }
    }
  }
  if (bare.length > 0) {
    throw new Error(`say type: 'integer' (or what they are) for: ${bare.join(', ')}`);
  }
}

/**
 * Applies the service's own rules to a document `SwaggerModule.createDocument` built from `app`
 * with `operationIdFactory`.
 */
export function applyServiceConstraints(
  document: OpenAPIObject,
  app: INestApplication,
  operationIdFactory: OperationIdFactory,
  { rateLimited }: { rateLimited: boolean },
): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const handlers = handlerArgs(app, operationIdFactory);
  applyValidators(
    schemas,
    [...handlers.values()].flatMap((h) => h.bodyDtos),
  );
  applyRouteArgs(document, handlers);
  closeRequestBodies(document, schemas);
  integerIds(schemas);
  documentResponseHeaders(
    document,
    (operationId) => handlers.get(operationId)?.fixedHeaders ?? [],
    rateLimited,
  );
}
