import type { FieldError } from './app-error.js';

/** Where a walk is: a container and the way to it (`parent`, `key`), its path built only if asked. */
interface Frame {
  value: object;
  parent: Frame | null;
  key: string | number;
  depth: number;
  free: boolean;
}

/**
 * What a walk checks. Each check answers a problem's message, or null. `free` says whether the
 * value lies inside free JSON (a document's `content`), which `startsFree` decides per member of
 * the root object.
 */
export interface JsonChecks {
  /** Every string, number, boolean and null. */
  leaf?(value: unknown, free: boolean): string | null;
  /** Every key of an object, at the object's depth (the root object's keys are at depth 0). */
  key?(key: string, depth: number, free: boolean): string | null;
  /** Every object and array, before its members: `size` is its number of members. */
  container?(depth: number, free: boolean, size: number): string | null;
  /** Whether the member `key` of the root object is free JSON. */
  startsFree?(key: string): boolean;
}

/**
 * The name of a member in a field path: `content.title`, `events[0]`, `content["a b"]` (any key
 * that is not a plain identifier is quoted as a JSON string, so a NUL or a lone surrogate in it
 * is written as an escape, never sent raw).
 */
export function memberPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function pathOf(frame: Frame | null, root: string): string {
  const keys: Array<string | number> = [];
  for (let f = frame; f?.parent; f = f.parent) keys.push(f.key);
  let path = root;
  for (let i = keys.length - 1; i >= 0; i--) path = memberPath(path, keys[i]!);
  return path;
}

/**
 * Walks a parsed JSON value without recursion and answers the first problem it meets, named by
 * its path from `root`: an object's or array's own keys and leaves first, in order, then its
 * members that are containers, each walked whole before the next. Linear in the value's size:
 * members that are not containers are checked where they stand, and a path is written only for
 * the problem found, so a 5 MB body of millions of members costs one pass and no string per
 * member.
 */
export function walkJson(value: unknown, root: string, checks: JsonChecks): FieldError | null {
  const at = (frame: Frame | null, key?: string | number): string => {
    const path = pathOf(frame, root);
    return key === undefined ? path : memberPath(path, key);
  };
  if (value === null || typeof value !== 'object') {
    const message = checks.leaf?.(value, false);
    return message ? { field: root, message } : null;
  }
  const stack: Frame[] = [{ value, parent: null, key: '', depth: 0, free: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value: container, depth, free } = frame;
    const array = Array.isArray(container);
    const keys = array ? null : Object.keys(container);
    const size = array ? container.length : keys!.length;
    const own = checks.container?.(depth, free, size);
    if (own) return { field: at(frame), message: own };
    // keys and leaves in order; the member containers after, the first of them walked first
    const containers: Frame[] = [];
    for (let i = 0; i < size; i++) {
      const key: string | number = array ? i : keys![i]!;
      const member: unknown = array
        ? (container as unknown[])[i]
        : (container as Record<string, unknown>)[key];
      if (!array) {
        const message = checks.key?.(key as string, depth, free);
        if (message) return { field: at(frame, key), message };
      }
      const memberFree =
        free || (depth === 0 && !array && (checks.startsFree?.(key as string) ?? false));
      if (member !== null && typeof member === 'object') {
        containers.push({ value: member, parent: frame, key, depth: depth + 1, free: memberFree });
        continue;
      }
      const message = checks.leaf?.(member, memberFree);
      if (message) return { field: at(frame, key), message };
    }
    for (let i = containers.length - 1; i >= 0; i--) stack.push(containers[i]!);
  }
  return null;
}
