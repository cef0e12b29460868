import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { type FieldError, ValidationFailedError } from './app-error.js';

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

/** Deeper than any document structure needs; class-transformer recurses per level. */
export const MAX_BODY_DEPTH = 100;

/**
 * Walks a parsed body without recursion: a body nested deeper than MAX_BODY_DEPTH would overflow
 * the stack of the transformer (a 500), and an own `__proto__` key (JSON.parse makes one) would be
 * silently dropped or turned into a prototype when the body is copied into a DTO.
 */
export function checkBodyShape(body: unknown): FieldError | null {
  const stack: Array<{ value: unknown; depth: number; field: string }> = [
    { value: body, depth: 0, field: 'body' },
  ];
  while (stack.length > 0) {
    const { value, depth, field } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      return { field: 'body', message: `is nested deeper than ${MAX_BODY_DEPTH} levels` };
    }
    for (const key of Object.keys(value)) {
      if (key === '__proto__')
        return { field: `${field}.${key}`, message: 'is not an allowed key' };
      stack.push({
        value: (value as Record<string, unknown>)[key],
        depth: depth + 1,
        field: Array.isArray(value) ? `${field}[${key}]` : `${field}.${key}`,
      });
    }
  }
  return null;
}

/**
 * Path parameters reach their own pipes (`ParseIdPipe`) as the raw strings: the stock pipe would
 * first turn a `number` parameter into `+value`, so `1e3` or `0x10` would pass as ids.
 */
class AppValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      const error = checkBodyShape(value);
      if (error) throw new ValidationFailedError([error]);
    }
    return super.transform(value, metadata);
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
    exceptionFactory: (errors) =>
      new ValidationFailedError(
        flatten(errors).filter(
          (e, i, all) => all.findIndex((o) => o.field === e.field && o.message === e.message) === i,
        ),
      ),
  });
}
