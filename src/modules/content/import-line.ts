import type { ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../../common/http/app-error.js';
import type { ErrorCode } from '../../common/http/error-codes.js';
import { inexactNumber } from '../../common/http/json-numbers.js';
import { jsonLimitProblem, type JsonLimits } from '../../common/http/json-limits.js';
import {
  IMPORT_KINDS,
  IMPORT_LINE_CLASSES,
  type ImportKind,
  type ImportLine,
} from './platform/dto/import-line.request.js';

/** What a refused line is answered with in the import's `errors`. */
export interface LineError {
  line: number;
  code: ErrorCode;
  message: string;
}

export type ParsedLine = { kind: 'blank' } | { kind: 'line'; line: ImportLine } | LineRefusal;
type LineRefusal = { kind: 'error'; code: ErrorCode; message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const refused = (message: string, code: ErrorCode = 'validation_failed'): LineRefusal => ({
  kind: 'error',
  code,
  message,
});

/**
 * One NDJSON line, checked as the JSON API checks a body: UTF-8, the content limits counted
 * before anything is parsed (`CONTENT_MAX_NODES`, `CONTENT_MAX_DEPTH`), JSON, numbers a double
 * keeps, then the line's class by `kind` through the API's own validation pipe (closed: an unknown
 * field is refused; text PostgreSQL cannot hold is refused). A blank line is skipped.
 */
export async function parseImportLine(
  bytes: Buffer | null,
  maxLineBytes: number,
  limits: JsonLimits,
  pipe: ValidationPipe,
): Promise<ParsedLine> {
  if (bytes === null) return refused(`the line exceeds ${maxLineBytes} bytes`, 'payload_too_large');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return refused('the line is not valid UTF-8');
  }
  text = text.trim();
  if (text === '') return { kind: 'blank' };
  if (text[0] !== '{') return refused('the line is not a JSON object');
  const tooLarge = jsonLimitProblem(text, limits);
  if (tooLarge) return refused(`${tooLarge.field}: ${tooLarge.message}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refused('the line is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return refused('the line is not a JSON object');
  }
  const inexact = inexactNumber(text);
  if (inexact) return refused(`${inexact.field}: ${inexact.message}`);
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !(IMPORT_KINDS as readonly string[]).includes(kind)) {
    return refused(`kind: must be one of ${IMPORT_KINDS.join(', ')}`);
  }
  try {
    const line = (await pipe.transform(value, {
      type: 'body',
      metatype: IMPORT_LINE_CLASSES[kind as ImportKind],
      data: '',
    })) as ImportLine;
    return { kind: 'line', line };
  } catch (err) {
    if (err instanceof ValidationFailedError) return refused(err.message);
    throw err;
  }
}
