/**
 * Group 10's staging bodies (issue 39 item 4): `content` of an exact size in two shapes within the
 * service's limits (CONTENT_MAX_NODES 100,000, CONTENT_MAX_DEPTH 64, BODY_LIMIT 5 MiB), checked by
 * heavy-content.spec.ts against the service's own counter.
 */
export const MIB = 1024 * 1024;

export type Shape = 'wide' | 'deep';

/** Levels and entries per level of the deep shape: depth 62 and ~90,000 values, within 64 and 100,000. */
export const DEEP_LEVELS = 60;
export const DEEP_ENTRIES = 500;
export const WIDE_SECTION_CHARS = 16 * 1024;

/** mulberry32: the same text every run, so every run stages the same bytes. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'access control policy scope systems review owner record evidence audit risk asset ' +
  'supplier incident change backup recovery encryption key network logging monitoring ' +
  'training approval exception register version annual quarterly retention disposal'
).split(' ');

/** `length` characters of lowercase words and spaces: compressible as prose is, no escapes. */
export function prose(length: number, rand: () => number): string {
  let out = '';
  while (out.length < length) out += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
  return out.slice(0, length);
}

/** The content without its padding: long strings in a flat list, or a chain of levels. */
function contentOfShape(shape: Shape, bytes: number, rand: () => number): Record<string, unknown> {
  if (shape === 'wide') {
    const sections = Math.floor(bytes / (WIDE_SECTION_CHARS + 40));
    return {
      title: 'Heavy content (wide)',
      sections: Array.from({ length: sections }, (_, i) => ({
        heading: `Section ${i + 1}`,
        body: prose(WIDE_SECTION_CHARS, rand),
      })),
    };
  }
  // an entry {"k":"…8…","v":"…"}, is 24 characters around its value
  const valueChars = Math.max(1, Math.floor((bytes * 0.98) / (DEEP_LEVELS * DEEP_ENTRIES)) - 24);
  let level: Record<string, unknown> | undefined;
  for (let i = DEEP_LEVELS; i >= 1; i--) {
    const entries = Array.from({ length: DEEP_ENTRIES }, () => ({
      k: prose(8, rand),
      v: prose(valueChars, rand),
    }));
    level = { level: i, entries, ...(level ? { child: level } : {}) };
  }
  return { title: 'Heavy content (deep)', ...level };
}

/**
 * A staging body of exactly `bytes` bytes: the shape's content, a `padding` string filling the
 * rest (the node and depth counts barely change), and a source reference.
 */
export function heavyBody(shape: Shape, bytes: number): string {
  const content = contentOfShape(shape, bytes, random(bytes + shape.length));
  const body = { content: { ...content, padding: '' }, source_reference: `bench heavy ${shape}` };
  const missing = bytes - JSON.stringify(body).length;
  if (missing < 0) throw new Error(`the ${shape} content is ${-missing} bytes over ${bytes}`);
  body.content.padding = prose(missing, random(missing));
  return JSON.stringify(body);
}
