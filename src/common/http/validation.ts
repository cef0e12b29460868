import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { type FieldError, ValidationFailedError } from './app-error.js';
import {
  MAX_BODY_DEPTH,
  MAX_BODY_MEMBERS,
  MAX_BODY_TOTAL_MEMBERS,
  TOO_MANY_IN_ALL,
  TOO_MANY_MEMBERS,
} from './body-bounds.js';
import { walkJson } from './json-walk.js';
import { PreparedJson } from './prepared-json.js';
import { findTextProblem, keyTextProblem, textProblem } from './text.js';

export { MAX_BODY_DEPTH, MAX_BODY_MEMBERS, MAX_BODY_TOTAL_MEMBERS };

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({
      field,
      message: message.startsWith('property ') ? message.replace(/^property \S+ /, '') : message,
    }));
    return own.concat(flatten(e.children ?? [], field));
  });
}

const FREE_JSON = 'app:free-json';

/**
 * Marks a body property whose value is free JSON (a document's `content`): the pipe validates the
 * property's own decorators against it but hands the handler the value exactly as parsed. Nest's
 * pipe and class-transformer would otherwise copy it, and the copy loses every key named like a
 * member of `Object.prototype` (`constructor`, `toString`, `__proto__`, …) at any depth.
 */
export function FreeJson(): PropertyDecorator {
  return (target, key) => {
    const owner = target.constructor;
    const own = (Reflect.getOwnMetadata(FREE_JSON, owner) as string[] | undefined) ?? [];
    Reflect.defineMetadata(FREE_JSON, [...own, String(key)], owner);
  };
}

function freeJsonProperties(metatype: unknown): Set<string> {
  if (typeof metatype !== 'function') return new Set();
  return new Set((Reflect.getMetadata(FREE_JSON, metatype) as string[] | undefined) ?? []);
}

/**
 * Top-level names the pipe cannot treat as ordinary unknown fields: Nest deletes `__proto__`,
 * `prototype` and `constructor` before validating, and class-transformer skips any name the DTO
 * instance inherits (`toString`, `hasOwnProperty`, …), so the whitelist would never see them and
 * they would vanish without a 400.
 */
function isHiddenMember(metatype: unknown, key: string): boolean {
  if (key === '__proto__' || key === 'prototype' || key === 'constructor') return true;
  const proto = typeof metatype === 'function' ? (metatype.prototype as object) : Object.prototype;
  return Reflect.has(proto, key);
}

/**
 * Walks a parsed body once, in time linear in its size, and returns its first problem:
 * - nested deeper than MAX_BODY_DEPTH (the transformer's recursion would overflow: a 500);
 * - an object or array outside free JSON with more than MAX_BODY_MEMBERS members, or more than
 *   MAX_BODY_TOTAL_MEMBERS members in all outside free JSON;
 * - a top-level field named like an inherited member (`constructor`, `toString`, …): an unknown
 *   field like any other, which the stock pipe would drop silently instead;
 * - an own `__proto__` key at any depth: outside free JSON copying the body into a DTO would drop
 *   it or turn it into a prototype; inside free JSON (`content`) it is refused too (docs/operators/security.md), since
 *   content goes on to the platform, where a naive merge of it would pollute a prototype;
 * - a string or key PostgreSQL or JSON cannot hold (U+0000, a lone surrogate), named by its path.
 * `metatype` is the DTO class the body is validated against, when there is one.
 */
export function checkBodyShape(
  body: unknown,
  metatype?: unknown,
  free: ReadonlySet<string> = freeJsonProperties(metatype),
): FieldError | null {
  let tooDeep = false;
  let tooMany = false;
  let members = 0;
  const problem = walkJson(body, '', {
    leaf: (value) => (typeof value === 'string' ? textProblem(value) : null),
    container: (depth, inFree, size) => {
      if (depth >= MAX_BODY_DEPTH) {
        tooDeep = true;
        return `is nested deeper than ${MAX_BODY_DEPTH} levels`;
      }
      if (inFree) return null;
      if (size > MAX_BODY_MEMBERS) return TOO_MANY_MEMBERS;
      members += size;
      if (members <= MAX_BODY_TOTAL_MEMBERS) return null;
      tooMany = true;
      return TOO_MANY_IN_ALL;
    },
    key: (key, depth) => {
      if (depth === 0 && isHiddenMember(metatype, key)) return 'should not exist';
      if (key === '__proto__') return 'is not an allowed key';
      return keyTextProblem(key);
    },
    startsFree: (key) => free.has(key),
  });
  if (!problem) return null;
  const whole = tooDeep || tooMany || !problem.field;
  return { field: whole ? 'body' : problem.field, message: problem.message };
}

/**
 * The body with its prepared members (a big body's, `PreparedJson`) made plain for the shape
 * check: a free one stands as an empty object or array (its own problem is `preparedProblem`'s);
 * any other one is parsed back here, when it is small enough to be valid outside free JSON
 * (MAX_BODY_TOTAL_MEMBERS), else the body is refused as too big in all.
 */
function withoutPrepared(body: unknown, free: ReadonlySet<string>): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const members = body as Record<string, unknown>;
  let plain: Record<string, unknown> | null = null;
  let budget = MAX_BODY_TOTAL_MEMBERS;
  for (const key of Object.keys(members)) {
    const v = members[key];
    if (!(v instanceof PreparedJson)) continue;
    plain ??= { ...members };
    let member: unknown;
    if (free.has(key)) member = v.array ? [] : {};
    else {
      if (v.problem) throw new ValidationFailedError([v.problem]);
      budget -= v.nodes - 1;
      if (budget < 0)
        throw new ValidationFailedError([{ field: 'body', message: TOO_MANY_IN_ALL }]);
      member = JSON.parse(v.canonical);
      // the handler gets the value too, as it would from a small body
      members[key] = member;
    }
    Object.defineProperty(plain, key, { value: member, enumerable: true, writable: true });
  }
  return plain ?? body;
}

/** The first problem a prepared free member of the body holds. */
function preparedProblem(body: unknown): FieldError | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  for (const v of Object.values(body)) if (v instanceof PreparedJson && v.problem) return v.problem;
  return null;
}

/**
 * Path parameters reach their own pipes (`ParseIdPipe`) as the raw strings: the stock pipe would
 * first turn a `number` parameter into `+value`, so `1e3` or `0x10` would pass as ids. Query and
 * path values with U+0000 or a lone surrogate are refused here, naming the parameter.
 */
class AppValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') return this.transformBody(value, metadata);
    if (metadata.type === 'query' || metadata.type === 'param') {
      const error = findTextProblem(value, metadata.data ?? '');
      if (error) throw new ValidationFailedError([error]);
    }
    return super.transform(value, metadata);
  }

  /**
   * Free JSON properties (`@FreeJson()`) are validated on a stand-in and then set on the DTO as
   * parsed: the stock pipe strips prototype-named keys from the body in place and class-transformer
   * copies nested objects without the keys a plain object inherits.
   */
  private async transformBody(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const free = freeJsonProperties(metadata.metatype);
    const error = checkBodyShape(withoutPrepared(value, free), metadata.metatype, free);
    if (error) throw new ValidationFailedError([error]);
    const prepared = preparedProblem(value);
    if (prepared) throw new ValidationFailedError([prepared]);
    if (free.size === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) {
      return super.transform(value, metadata);
    }
    const body = value as Record<string, unknown>;
    const standIn: Record<string, unknown> = {};
    const kept = new Map<string, unknown>();
    for (const key of Object.keys(body)) {
      const v = body[key];
      // an array too: never copied (class-transformer's copy grows with the square of its width),
      // and its stand-in fails the property's own checks as the array would
      if (free.has(key) && v !== null && typeof v === 'object') {
        kept.set(key, v);
        standIn[key] = (v instanceof PreparedJson ? v.array : Array.isArray(v)) ? [] : {};
      } else {
        standIn[key] = v;
      }
    }
    const dto = (await super.transform(standIn, metadata)) as Record<string, unknown>;
    for (const [key, v] of kept) dto[key] = v;
    return dto;
  }

  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

/** Whitelist + forbid unknown: a typo in an integration must not be silently ignored. */
export function createValidationPipe(): ValidationPipe {
  return new AppValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    // one message per field and wording: a value failing several constraints that share one
    // message (e.g. "must be an integer from 0 to N") names it once
    exceptionFactory: (errors) => {
      const seen = new Set<string>();
      return new ValidationFailedError(
        flatten(errors).filter((e) => {
          const key = JSON.stringify([e.field, e.message]);
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        }),
      );
    },
  });
}
