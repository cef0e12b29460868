import type { JsonText } from '../http/json-text.js';

interface AnyPage {
  data: unknown[];
  /** A cursor page's. */
  next_cursor?: string | null;
  /** An offset page's (GET /projects). */
  page?: { next_cursor?: string | null };
}

/** Every item of a paged list, read page after page through the service that serves the API's. */
export async function allPages<T>(
  read: (cursor: string | undefined) => Promise<JsonText<unknown>>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = JSON.parse((await read(cursor)).text) as AnyPage;
    all.push(...(page.data as T[]));
    cursor = page.next_cursor ?? page.page?.next_cursor ?? undefined;
  } while (cursor);
  return all;
}
