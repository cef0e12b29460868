import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which properties a response schema of the published OpenAPI documents declares, and which of them
 * real answers filled: the DTO is the definition of a response's shape, the SQL that builds its
 * JSON must produce every property of it (response-shapes.e2e-spec.ts). The closed-schema checker
 * (openapi-check.ts) refuses a property the document does not declare; this finds the other way
 * round, a declared property no answer carried (or carried only as `null` or `[]`).
 */

type Json = Record<string, any>;

export interface Api {
  name: 'integration' | 'platform';
  doc: Json;
}

const root = join(import.meta.dirname, '..', '..');
const load = (file: string): Json => JSON.parse(readFileSync(join(root, file), 'utf8')) as Json;

export const APIS: readonly Api[] = [
  { name: 'integration', doc: load('openapi.json') },
  { name: 'platform', doc: load('openapi.platform.json') },
];

export interface JsonGet {
  api: Api;
  /** The path as the document writes it, prefix included: `/api/v1/projects/{projectId}`. */
  template: string;
  operationId: string;
  operation: Json;
  /** The schema of the 200 answer's `application/json` body. */
  schema: Json;
}

/** Every GET operation of both documents whose 200 answer has a JSON body, from the files. */
export function jsonGetOperations(apis: readonly Api[] = APIS): JsonGet[] {
  const out: JsonGet[] = [];
  for (const api of apis) {
    for (const [template, item] of Object.entries(api.doc.paths as Json)) {
      const operation = (item as Json).get as Json | undefined;
      const schema = operation?.responses?.['200']?.content?.['application/json']?.schema as
        Json | undefined;
      if (operation && schema) {
        out.push({ api, template, operationId: String(operation.operationId), operation, schema });
      }
    }
  }
  return out;
}

/**
 * A schema read for its shape: the properties an object declares (its `allOf` parts and untagged
 * `oneOf`/`anyOf` branches merged in), its array items, and its branches by discriminator value.
 */
export interface Shape {
  props: Map<string, Shape>;
  items?: Shape;
  branches?: { prop: string; byValue: Map<string, Shape> };
}

function resolve(doc: Json, ref: string): Json {
  const name = ref.replace(/^#\/components\/schemas\//, '');
  const found = (doc.components?.schemas as Json | undefined)?.[name] as Json | undefined;
  if (!found) throw new Error(`${ref} is not in the document`);
  return found;
}

function merge(into: Shape, from: Shape): Shape {
  for (const [k, v] of from.props) {
    const mine = into.props.get(k);
    into.props.set(k, mine ? merge(mine, v) : v);
  }
  if (from.items) into.items = into.items ? merge(into.items, from.items) : from.items;
  if (from.branches) {
    into.branches ??= { prop: from.branches.prop, byValue: new Map() };
    for (const [value, b] of from.branches.byValue) into.branches.byValue.set(value, b);
  }
  return into;
}

/** The discriminator value of a branch: its mapping entry, else its property's single enum. */
function branchValue(doc: Json, branch: Json, prop: string, mapping: Json): string {
  const entry = Object.entries(mapping).find(([, ref]) => ref === branch.$ref);
  if (entry) return entry[0];
  const schema = branch.$ref ? resolve(doc, String(branch.$ref)) : branch;
  const values = (schema.properties?.[prop]?.enum ?? []) as unknown[];
  if (values.length !== 1) throw new Error(`a branch without one value of ${prop}`);
  return String(values[0]);
}

export function shapeOf(doc: Json, schema: Json, refs: readonly string[] = []): Shape {
  if (typeof schema.$ref === 'string') {
    // a schema that contains itself is read once: its second reading adds nothing
    if (refs.includes(schema.$ref)) return { props: new Map() };
    return shapeOf(doc, resolve(doc, schema.$ref), [...refs, schema.$ref]);
  }
  const shape: Shape = { props: new Map() };
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Json)) {
    shape.props.set(k, shapeOf(doc, v as Json, refs));
  }
  if (schema.items && typeof schema.items === 'object') {
    shape.items = shapeOf(doc, schema.items as Json, refs);
  }
  for (const part of (schema.allOf ?? []) as Json[]) merge(shape, shapeOf(doc, part, refs));
  const choices = [...((schema.oneOf ?? []) as Json[]), ...((schema.anyOf ?? []) as Json[])];
  const prop = schema.discriminator?.propertyName as string | undefined;
  for (const choice of choices) {
    const branch = shapeOf(doc, choice, refs);
    if (!prop) merge(shape, branch);
    else {
      const value = branchValue(doc, choice, prop, (schema.discriminator.mapping ?? {}) as Json);
      merge(shape, { props: new Map(), branches: { prop, byValue: new Map([[value, branch]]) } });
    }
  }
  return shape;
}

/**
 * Every property path a shape declares: `$.data[].name`; a discriminated branch's own properties
 * under `<value>`: `$.data[]<document.checked_in>.data.documentId`.
 */
export function declaredPaths(shape: Shape, path = '$'): string[] {
  const out: string[] = [];
  for (const [k, child] of shape.props)
    out.push(`${path}.${k}`, ...declaredPaths(child, `${path}.${k}`));
  if (shape.items) out.push(...declaredPaths(shape.items, `${path}[]`));
  for (const [value, b] of shape.branches?.byValue ?? []) {
    out.push(...declaredPaths(b, `${path}<${value}>`));
  }
  return out;
}

/** What answers of one operation carried, by property path. */
export class Coverage {
  /** Paths that appeared, whatever their value. */
  readonly present = new Set<string>();
  /** Paths that appeared with a value neither `null` nor an empty array. */
  readonly filled = new Set<string>();
  /** Paths of properties the schema does not declare. */
  readonly undeclared = new Set<string>();
  answers = 0;

  constructor(readonly shape: Shape) {}

  observe(body: unknown): this {
    this.answers += 1;
    this.walk(this.shape, body, '$');
    return this;
  }

  private walk(shape: Shape, value: unknown, path: string): void {
    if (Array.isArray(value)) {
      if (shape.items) for (const v of value) this.walk(shape.items, v, `${path}[]`);
      return;
    }
    // an object the schema leaves free (a version's `content`) has no properties to follow
    if (!value || typeof value !== 'object' || (shape.props.size === 0 && !shape.branches)) return;
    for (const [k, v] of Object.entries(value)) {
      const found = lookup(shape, value, k, path);
      if (!found) {
        this.undeclared.add(`${path}.${k}`);
        continue;
      }
      this.present.add(found.path);
      if (v !== null && !(Array.isArray(v) && v.length === 0)) this.filled.add(found.path);
      this.walk(found.shape, v, found.path);
    }
  }

  /** Declared paths no answer carried at all. */
  missing(): string[] {
    return declaredPaths(this.shape).filter((p) => !this.present.has(p));
  }

  /** Declared paths answers carried only as `null` or `[]`. */
  neverFilled(): string[] {
    return declaredPaths(this.shape).filter((p) => this.present.has(p) && !this.filled.has(p));
  }
}

function lookup(
  shape: Shape,
  value: Json,
  key: string,
  path: string,
): { shape: Shape; path: string } | undefined {
  const own = shape.props.get(key);
  if (own) return { shape: own, path: `${path}.${key}` };
  if (!shape.branches) return undefined;
  const tag = String(value[shape.branches.prop]);
  const branch = shape.branches.byValue.get(tag);
  return branch ? lookup(branch, value, key, `${path}<${tag}>`) : undefined;
}
