import type { FieldError } from './app-error.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string | null;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** A problem body; its status and title are the registry's for `code`. */
export function problem(
  code: ErrorCode,
  detail: string,
  requestId: string | null,
  extra: Record<string, unknown> = {},
): ProblemBody {
  const { status, title } = ERROR_CODES[code];
  return {
    type: `urn:problem:${code}`,
    title,
    status,
    detail,
    code,
    request_id: requestId,
    ...extra,
  };
}
