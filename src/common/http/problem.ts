import type { FieldError } from './app-error.js';

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

export function problem(
  status: number,
  code: string,
  title: string,
  detail: string,
  requestId: string | null,
  extra: Record<string, unknown> = {},
): ProblemBody {
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
