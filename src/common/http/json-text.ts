/**
 * A response body that already is JSON text, written as `JSON.stringify` would write the value it
 * stands for (built by PostgreSQL for the big lists). Both HTTP platforms send `text` as is, with
 * the headers a JSON body gets, instead of parsing it and serialising it again.
 *
 * `T` is the value the text encodes, for the controllers' and the OpenAPI types only.
 */
export class JsonText<T = unknown> {
  declare private readonly encodes?: T;

  constructor(readonly text: string) {}

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
