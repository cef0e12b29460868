import { ValidationPipe, type ValidationError } from '@nestjs/common';
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

/** Whitelist + forbid unknown: a typo in an integration must not be silently ignored. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(flatten(errors)),
  });
}
