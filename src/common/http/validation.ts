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

/**
 * Path parameters reach their own pipes (`ParseIdPipe`) as the raw strings: the stock pipe would
 * first turn a `number` parameter into `+value`, so `1e3` or `0x10` would pass as ids.
 */
class AppValidationPipe extends ValidationPipe {
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
    exceptionFactory: (errors) => new ValidationFailedError(flatten(errors)),
  });
}
