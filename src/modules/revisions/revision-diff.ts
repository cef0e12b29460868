import jsonPatch from 'fast-json-patch';

/** The operations a diff holds: `compare` writes only these three of RFC 6902's six. */
export type JsonPatchOperation =
  { op: 'add' | 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

/**
 * The RFC 6902 JSON Patch that turns `from` into `to` (applied to `from`, it gives `to`). Objects
 * are compared key by key, arrays index by index (no longest-common-subsequence search), so the
 * work is linear in the two contents: with contents bounded by CONTENT_MAX_NODES (100,000 values),
 * one diff costs tens of milliseconds at most.
 */
export function contentDiff(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
): JsonPatchOperation[] {
  return jsonPatch.compare(from, to) as JsonPatchOperation[];
}
