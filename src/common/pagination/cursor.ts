import { ValidationFailedError } from '../http/app-error.js';

/**
 * Which list a cursor walks: the tenant, the list's name, and whatever else pins it (the project
 * of a project's documents, the document of its versions, a filter set). A cursor decodes only
 * for the identity it was made for; any other is refused like a malformed one.
 */
export interface ListIdentity {
  tenantId: number;
  /** Stable name of the list, e.g. `project.documents`. */
  list: string;
  /** Path ids and filters that pin the list, in a fixed order. */
  scope?: readonly (number | string)[];
}

/** A position in a list: the sort key of the last row of a page (integers, e.g. `[id]`). */
export type CursorKey = readonly number[];

const VERSION = 1;
/** Far more than any cursor of ours needs; refused before decoding anything longer. */
export const MAX_CURSOR_LENGTH = 512;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The answer to a malformed, tampered or foreign cursor: one message for all of them. */
function refused(): ValidationFailedError {
  return new ValidationFailedError([
    { field: 'cursor', message: 'is not a cursor of this list (use the next_cursor it answered)' },
  ]);
}

/**
 * Opaque keyset cursors, shared by every list. A cursor is the base64url of
 * `[version, tenantId, list, scope, key]`: it names the last row a page returned, never an
 * offset, so a walk costs the same on its last page as on its first and rows inserted while a
 * client walks can neither repeat nor push older rows out of the walk.
 *
 * Opaque by contract, not secret: clients must not build or edit cursors, and a cursor is checked
 * against the tenant and the list it is used with (400 `validation_failed` otherwise). Nothing is
 * signed, because nothing needs to be: every page query filters on the caller's tenant and list,
 * so a hand-made cursor could only name a position in rows the caller may read anyway.
 */
export const Cursor = {
  encode(identity: ListIdentity, key: CursorKey): string {
    const payload = [VERSION, identity.tenantId, identity.list, identity.scope ?? [], key];
    return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  },

  /**
   * The key `cursor` carries, or `null` when there is no cursor (the first page). Throws 400
   * `validation_failed` (field `cursor`) for anything that is not a cursor this list made for this
   * tenant with a key of `keyLength` integers.
   */
  decode(identity: ListIdentity, cursor: string | undefined, keyLength = 1): number[] | null {
    if (cursor === undefined) return null;
    if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) {
      throw refused();
    }
    let payload: unknown;
    try {
      const json = Buffer.from(cursor, 'base64url').toString('utf8');
      // the decoder skips what it cannot use (a stray last character): only the exact text
      // `encode` writes for that payload is a cursor
      if (Buffer.from(json, 'utf8').toString('base64url') !== cursor) throw refused();
      payload = JSON.parse(json);
    } catch {
      throw refused();
    }
    if (!Array.isArray(payload) || payload.length !== 5) throw refused();
    const [version, tenantId, list, scope, key] = payload as unknown[];
    const expectedScope = identity.scope ?? [];
    const sameScope =
      Array.isArray(scope) &&
      scope.length === expectedScope.length &&
      scope.every((s, i) => s === expectedScope[i]);
    const validKey =
      Array.isArray(key) &&
      key.length === keyLength &&
      key.every((k) => typeof k === 'number' && Number.isSafeInteger(k) && k >= 0);
    if (
      version !== VERSION ||
      tenantId !== identity.tenantId ||
      list !== identity.list ||
      !sameScope ||
      !validKey
    ) {
      throw refused();
    }
    return key as number[];
  },
};

/** `{ data, next_cursor }`: the envelope of every cursor-paged list. */
export interface CursorPage<T> {
  data: T[];
  next_cursor: string | null;
}
