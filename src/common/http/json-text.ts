/**
 * A piece of a response's text that is let go once the response is written (`release`), while
 * whatever refers to it may live on. A big page waits its turn (and any read may wait for a pool
 * connection) long enough for its request's promises and frames to reach V8's old generation. A
 * young string such an old object points to survives every scavenge until the next full
 * collection, dead or not, so each page's texts were promoted, and the full collections that
 * followed made the page's latency tail (bench/README.md, "page texts let go once sent"). The old
 * objects hold this small box instead.
 */
export class HeldText {
  private held: string | null;

  constructor(text: string) {
    this.held = text;
  }

  get text(): string {
    if (this.held === null) throw new Error('the text was released when its response was sent');
    return this.held;
  }

  release(): void {
    this.held = null;
  }
}

/** A column's type once held: a text becomes a `HeldText` (keeping any brand on the text). */
export type HeldColumn<V> = V extends string ? HeldText & Omit<V, keyof string> : V;

/** A row `R` as a statement answered it, once its columns `K` are held (`holdColumns`). */
export type Held<R, K extends PropertyKey> = {
  [P in keyof R]: P extends K ? HeldColumn<R[P]> : R[P];
};

/**
 * A statement's row type as the driver answers it: no member may claim a `HeldText`, which only a
 * hold makes (`never` in the place of such a member, so the statement does not type-check).
 */
export type DriverRow<R> = {
  [P in keyof R]: Extract<R[P], HeldText> extends never ? R[P] : never;
};

declare const HOLDS: unique symbol;

/**
 * What holds the texts of the columns `K` of the rows a statement answered, in place. A read that
 * takes one answers its rows typed as `Held` (`TenantTransactions.readOnce`), so a row's type
 * says which of its texts are held. Only `holdColumns` makes one.
 */
export interface ColumnsHold<K extends string> {
  (rows: readonly object[]): void;
  readonly columns: readonly K[];
  readonly [HOLDS]: true;
}

/**
 * Holds the texts of `columns`, named by literal types (a `string[]` would type every column as
 * held): each of them that is a string becomes a `HeldText`; every other column stays as the
 * driver gave it.
 */
export function holdColumns<K extends string>(
  columns: readonly (string extends K ? never : K)[],
): ColumnsHold<K> {
  const hold = (rows: readonly object[]): void => {
    for (const row of rows) {
      const values = row as Record<string, unknown>;
      for (const name of columns) {
        const value = values[name];
        if (typeof value === 'string') values[name] = new HeldText(value);
      }
    }
  };
  return Object.assign(hold, { columns }) as unknown as ColumnsHold<K>;
}

const textOf = (piece: string | HeldText): string =>
  typeof piece === 'string' ? piece : piece.text;

/** The type both platforms give a value they serialise as JSON (`res.json`, Fastify's reply). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A response body that already is JSON text, written as `JSON.stringify` would write the value it
 * stands for (built by PostgreSQL for the big lists). Both HTTP platforms send it as is, with the
 * headers a JSON body gets, instead of parsing it and serialising it again.
 *
 * The text is kept in the pieces it arrived in (a page arrives as several columns of at most
 * PAGE_PART_ITEMS items) and is sent as `parts()`, which both platforms write one by one: a page
 * is never one JS string, nor one Buffer. V8 keeps every string over 128 KiB in its
 * large-object space, where making one costs as much as the rest of the page's work
 * (bench/README.md, "A 1,000-row page in pieces").
 *
 * A body with `HeldText` pieces can be read only until a platform has sent it (`release`).
 *
 * `T` is the value the text encodes, for the controllers' and the OpenAPI types only.
 */
export class JsonText<T = unknown> {
  declare private readonly encodes?: T;
  private readonly pieces: readonly (string | HeldText)[];

  /** The text is the pieces one after the other. */
  constructor(...pieces: (string | HeldText)[]) {
    this.pieces = pieces;
  }

  /**
   * The whole text, as one string: for callers inside the process, and for a body sent with a
   * type its handler set; never on the page's own send path.
   */
  get text(): string {
    return this.parts().join('');
  }

  /** The pieces, to be written one after the other (`byteLength` bytes in all). */
  parts(): string[] {
    return this.pieces.map(textOf);
  }

  /** Lets go of the held pieces' texts: the platform calls it once they are written or encoded. */
  release(): void {
    for (const piece of this.pieces) if (piece instanceof HeldText) piece.release();
  }

  /** The length of the text's UTF-8 encoding. */
  byteLength(): number {
    let size = 0;
    for (const piece of this.pieces) size += Buffer.byteLength(textOf(piece), 'utf8');
    return size;
  }

  /** The value `text` encodes: for callers inside the process (tests, other services). */
  value(): T {
    return JSON.parse(this.text) as T;
  }

  /**
   * Whatever serialises the object with `JSON.stringify` (a path that does not know this class)
   * still writes the same text, only more slowly.
   */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
