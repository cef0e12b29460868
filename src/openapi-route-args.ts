import type { INestApplication, Type } from '@nestjs/common';
import { HEADERS_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import { DECORATORS, type OpenAPIObject, type ParameterObject } from '@nestjs/swagger';
import type { IdSchema } from './common/http/params.js';
import type { FixedHeader } from './openapi-headers.js';
import { applyProperty, inheritedMetadata, type Schema } from './openapi-validators.js';

// What the controllers' handlers declare (their `@Query()` and `@Body()` DTOs, their `@Param`
// pipes, their `@Header`s), read from Nest's metadata, and the parameters it constrains.

export type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

export function operations(document: OpenAPIObject): Operation[] {
  return Object.values(document.paths).flatMap((item) =>
    (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((m) => item[m] ?? []),
  );
}
/** Builds an operation's id as `SwaggerModule.createDocument` was told to. */
export type OperationIdFactory = (controllerKey: string, methodKey: string) => string;

interface RouteArg {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

/** What a handler declares of its query and path: its `@Query()` DTOs, its `@Param` pipes. */
export interface HandlerArgs {
  queryDtos: object[];
  bodyDtos: object[];
  pathPipes: Map<string, unknown[]>;
  /** Its `@Header` response headers. */
  fixedHeaders: FixedHeader[];
}

/** Every handler of the application's controllers, by the operationId the document gives it. */
export function handlerArgs(
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
export function applyRouteArgs(document: OpenAPIObject, handlers: Map<string, HandlerArgs>): void {
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
