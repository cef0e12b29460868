import type { INestApplication, Type } from '@nestjs/common';
import { HEADERS_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import {
  DECORATORS,
  type OpenAPIObject,
  type ParameterObject,
  type ReferenceObject,
  type SchemaObject,
} from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { minFieldsOf } from './common/http/min-fields.js';
import { MAX_BIG_ID, MAX_ID, type IdSchema } from './common/http/params.js';
import { documentResponseHeaders, type FixedHeader } from './openapi-headers.js';

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

interface ValidatorMetadata {
  type: string;
  name?: string;
  target: unknown;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
}

type Schema = SchemaObject & { type?: string | string[] };

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

function schemaName(target: object): string {
  const named = Reflect.getOwnMetadata(DECORATORS.API_SCHEMA, target) as
    Array<{ name?: string }> | undefined;
  return named?.at(-1)?.name ?? (target as { name: string }).name;
}

function validationStorage(): Map<object, ValidatorMetadata[]> {
  return (
    getMetadataStorage() as unknown as {
      validationMetadatas: Map<object, ValidatorMetadata[]>;
    }
  ).validationMetadatas;
}

/** A class's validation metadata and its parents' (a subclass holds their properties). */
function inheritedMetadata(target: object): ValidatorMetadata[] {
  const storage = validationStorage();
  const inherited: ValidatorMetadata[] = [];
  for (let t: unknown = target; typeof t === 'function' && t !== Function.prototype;) {
    inherited.push(...(storage.get(t) ?? []));
    t = Object.getPrototypeOf(t);
  }
  return inherited;
}

/**
 * The validation metadata of every class, by its published schema name: each class with
 * validators of its own, and each `bodies` class (a subclass that only inherits its validators).
 */
function validatedClasses(
  bodies: readonly object[],
): Map<string, { target: object; metas: ValidatorMetadata[] }> {
  const byName = new Map<string, { target: object; metas: ValidatorMetadata[] }>();
  const targets = new Map(validationStorage());
  for (const body of bodies) if (!targets.has(body)) targets.set(body, []);
  for (const [target, metadatas] of targets) {
    const inherited = inheritedMetadata(target);
    byName.set(schemaName(target), {
      target,
      metas: inherited.length > 0 ? inherited : metadatas,
    });
  }
  return byName;
}

function typesOf(schema: Schema): string[] {
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

/** Replaces `from` by `to` in the schema's type, keeping `null` beside it. */
function retype(schema: Schema, to: string): void {
  const types = typesOf(schema);
  schema.type = types.includes('null') ? [to, 'null'] : to;
}

function integerFormat(schema: Schema): void {
  const min = schema.minimum ?? Number.NEGATIVE_INFINITY;
  const max = schema.maximum ?? Number.POSITIVE_INFINITY;
  schema.format = min >= INT32_MIN && max <= INT32_MAX ? 'int32' : 'int64';
}

/** One constraint on the schema of the value it checks (the property, or its items). */
function applyConstraint(schema: Schema, meta: ValidatorMetadata): void {
  const [first] = meta.constraints ?? [];
  switch (meta.name ?? meta.type) {
    case 'isInt':
      retype(schema, 'integer');
      break;
    case 'isString':
      retype(schema, 'string');
      break;
    case 'isBoolean':
      retype(schema, 'boolean');
      break;
    case 'min':
      schema.minimum = first as number;
      break;
    case 'max':
      schema.maximum = first as number;
      break;
    case 'minLength':
      schema.minLength = first as number;
      break;
    case 'maxLength':
      schema.maxLength = first as number;
      break;
    case 'isNotEmpty':
      if (typesOf(schema).includes('string')) schema.minLength = Math.max(schema.minLength ?? 0, 1);
      break;
    case 'arrayNotEmpty':
      schema.minItems = Math.max(schema.minItems ?? 0, 1);
      break;
    case 'arrayMinSize':
      schema.minItems = first as number;
      break;
    case 'arrayMaxSize':
      schema.maxItems = first as number;
      break;
    case 'arrayUnique':
      schema.uniqueItems = true;
      break;
    case 'isIn':
      schema.enum = [...(first as unknown[])];
      break;
    case 'matches':
      // a flag (`i`, `u`, …) has no JSON Schema spelling: such a pattern stays in the prose
      if (first instanceof RegExp && first.flags === '') schema.pattern = first.source;
      break;
    default:
  }
}

function applyProperty(property: Schema, metas: ValidatorMetadata[]): void {
  // a `$ref` or composed property is another schema's business
  if (!property.type && !property.items) return;
  for (const meta of metas) {
    const target =
      meta.each && property.items && !('$ref' in property.items)
        ? (property.items as Schema)
        : property;
    applyConstraint(target, meta);
  }
  for (const s of [property, property.items as Schema | undefined]) {
    if (s && typesOf(s).includes('integer')) integerFormat(s);
  }
}

function applyValidators(schemas: Record<string, Schema>, bodies: readonly object[]): void {
  for (const [name, { target, metas }] of validatedClasses(bodies)) {
    const schema = schemas[name];
    if (!schema?.properties) continue;
    const minFields = minFieldsOf(target);
    if (minFields !== undefined) schema.minProperties = minFields;
    const byProperty = new Map<string, ValidatorMetadata[]>();
    for (const m of metas)
      byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
    for (const [property, own] of byProperty) {
      const propertySchema = schema.properties[property] as Schema | undefined;
      if (propertySchema) applyProperty(propertySchema, own);
    }
  }
}

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

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

function operations(document: OpenAPIObject): Operation[] {
  return Object.values(document.paths).flatMap((item) =>
    (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((m) => item[m] ?? []),
  );
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

/** Builds an operation's id as `SwaggerModule.createDocument` was told to. */
export type OperationIdFactory = (controllerKey: string, methodKey: string) => string;

interface RouteArg {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

/** What a handler declares of its query and path: its `@Query()` DTOs, its `@Param` pipes. */
interface HandlerArgs {
  queryDtos: object[];
  bodyDtos: object[];
  pathPipes: Map<string, unknown[]>;
  /** Its `@Header` response headers. */
  fixedHeaders: FixedHeader[];
}

/** Every handler of the application's controllers, by the operationId the document gives it. */
function handlerArgs(
  app: INestApplication,
  operationIdFactory: OperationIdFactory,
): Map<string, HandlerArgs> {
  const byOperation = new Map<string, HandlerArgs>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const explicit = (
          Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as
            { operationId?: string } | undefined
        )?.operationId;
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
          string,
          RouteArg
        >;
        const types = (Reflect.getMetadata('design:paramtypes', prototype, name) ??
          []) as unknown[];
        const found: HandlerArgs = {
          queryDtos: [],
          bodyDtos: [],
          pathPipes: new Map(),
          fixedHeaders: (Reflect.getMetadata(HEADERS_METADATA, handler) ?? []) as FixedHeader[],
        };
        for (const [key, arg] of Object.entries(args)) {
          const kind = Number(key.split(':')[0]);
          if (kind === Number(RouteParamtypes.QUERY) && arg.data === undefined) {
            const dto = types[arg.index];
            if (typeof dto === 'function') found.queryDtos.push(dto);
          } else if (kind === Number(RouteParamtypes.BODY) && arg.data === undefined) {
            const dto = types[arg.index];
            if (typeof dto === 'function') found.bodyDtos.push(dto);
          } else if (kind === Number(RouteParamtypes.PARAM) && typeof arg.data === 'string') {
            found.pathPipes.set(arg.data, arg.pipes ?? []);
          }
        }
        byOperation.set(explicit ?? operationIdFactory(controller.name, name), found);
      }
    }
  }
  return byOperation;
}

/** The schema a path parameter's pipe publishes (`ParseIdPipe.schema`, …), if one does. */
function pipeSchema(pipes: readonly unknown[]): IdSchema | undefined {
  for (const pipe of pipes) {
    const type = (typeof pipe === 'function' ? pipe : (pipe as object | null)?.constructor) as
      { schema?: IdSchema } | undefined;
    if (type?.schema) return type.schema;
  }
  return undefined;
}

/**
 * Query parameters take their DTO property's validators; path ids their pipe's schema. A query
 * parameter no validator checks, or a numeric path parameter no pipe publishes a schema for, is
 * an error: the document would say what nothing enforces.
 */
function applyRouteArgs(document: OpenAPIObject, handlers: Map<string, HandlerArgs>): void {
  for (const operation of operations(document)) {
    const handler = operation.operationId ? handlers.get(operation.operationId) : undefined;
    for (const p of (operation.parameters ?? []) as ParameterObject[]) {
      const s = p.schema as Schema | undefined;
      if (!s || (p.in !== 'query' && p.in !== 'path')) continue;
      const where = `${p.in} parameter ${p.name} of ${operation.operationId ?? '?'}`;
      if (p.in === 'query') {
        const metas = (handler?.queryDtos ?? [])
          .flatMap((dto) => inheritedMetadata(dto))
          .filter((m) => m.propertyName === p.name);
        if (metas.length === 0) throw new Error(`no validator checks the ${where}`);
        applyProperty(s, metas);
      } else if (['number', 'integer'].includes(String(s.type))) {
        const schema = pipeSchema(handler?.pathPipes.get(p.name) ?? []);
        if (!schema) throw new Error(`no pipe publishes the schema of the ${where}`);
        p.schema = { ...s, ...schema };
      }
    }
  }
}

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
