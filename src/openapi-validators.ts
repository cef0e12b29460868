import { DECORATORS, type SchemaObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { minFieldsOf } from './common/http/min-fields.js';

// The class-validator constraints of the service's DTOs, as JSON Schema keywords of the schemas
// the document publishes for them (openapi-constraints.ts).

export interface ValidatorMetadata {
  type: string;
  name?: string;
  target: unknown;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
}

export type Schema = SchemaObject & { type?: string | string[] };

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

function schemaName(target: object): string {
  const named = Reflect.getOwnMetadata(DECORATORS.API_SCHEMA, target) as
    Array<{ name?: string }> | undefined;
  return named?.at(-1)?.name ?? (target as { name: string }).name;
}

function validationStorage(): Map<object, ValidatorMetadata[]> {
  return (
    getMetadataStorage() as unknown as {
      validationMetadatas: Map<object, ValidatorMetadata[]>;
    }
  ).validationMetadatas;
}

/** A class's validation metadata and its parents' (a subclass holds their properties). */
export function inheritedMetadata(target: object): ValidatorMetadata[] {
  const storage = validationStorage();
  const inherited: ValidatorMetadata[] = [];
  for (let t: unknown = target; typeof t === 'function' && t !== Function.prototype;) {
    inherited.push(...(storage.get(t) ?? []));
    t = Object.getPrototypeOf(t);
  }
  return inherited;
}

/**
 * The validation metadata of every class, by its published schema name: each class with
 * validators of its own, and each `bodies` class (a subclass that only inherits its validators).
 */
function validatedClasses(
  bodies: readonly object[],
): Map<string, { target: object; metas: ValidatorMetadata[] }> {
  const byName = new Map<string, { target: object; metas: ValidatorMetadata[] }>();
  const targets = new Map(validationStorage());
  for (const body of bodies) if (!targets.has(body)) targets.set(body, []);
  for (const [target, metadatas] of targets) {
    const inherited = inheritedMetadata(target);
    byName.set(schemaName(target), {
      target,
      metas: inherited.length > 0 ? inherited : metadatas,
    });
  }
  return byName;
}

export function typesOf(schema: Schema): string[] {
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

/** Replaces `from` by `to` in the schema's type, keeping `null` beside it. */
export function retype(schema: Schema, to: string): void {
  const types = typesOf(schema);
  schema.type = types.includes('null') ? [to, 'null'] : to;
}

export function integerFormat(schema: Schema): void {
  const min = schema.minimum ?? Number.NEGATIVE_INFINITY;
  const max = schema.maximum ?? Number.POSITIVE_INFINITY;
  schema.format = min >= INT32_MIN && max <= INT32_MAX ? 'int32' : 'int64';
}

/** The validators that fix the type of the value they check. */
const TYPE_OF = new Map([
  ['isInt', 'integer'],
  ['isString', 'string'],
  ['isBoolean', 'boolean'],
]);

/** The validators whose first constraint is, as it is, the value of one schema keyword. */
const KEYWORD_OF = new Map<
  string,
  'minimum' | 'maximum' | 'minLength' | 'maxLength' | 'minItems' | 'maxItems'
>([
  ['min', 'minimum'],
  ['max', 'maximum'],
  ['minLength', 'minLength'],
  ['maxLength', 'maxLength'],
  ['arrayMinSize', 'minItems'],
  ['arrayMaxSize', 'maxItems'],
]);

/** One constraint on the schema of the value it checks (the property, or its items). */
function applyConstraint(schema: Schema, meta: ValidatorMetadata): void {
  const [first] = meta.constraints ?? [];
  const name = meta.name ?? meta.type;
  const type = TYPE_OF.get(name);
  if (type !== undefined) {
    retype(schema, type);
    return;
  }
  const keyword = KEYWORD_OF.get(name);
  if (keyword !== undefined) {
    schema[keyword] = first as number;
    return;
  }
  switch (name) {
    case 'isNotEmpty':
      if (typesOf(schema).includes('string')) schema.minLength = Math.max(schema.minLength ?? 0, 1);
      break;
    case 'arrayNotEmpty':
      schema.minItems = Math.max(schema.minItems ?? 0, 1);
      break;
    case 'arrayUnique':
      schema.uniqueItems = true;
      break;
    case 'isIn':
      schema.enum = [...(first as unknown[])];
      break;
    case 'matches':
      // a flag (`i`, `u`, …) has no JSON Schema spelling: such a pattern stays in the prose
      if (first instanceof RegExp && first.flags === '') schema.pattern = first.source;
      break;
    default:
  }
}

export function applyProperty(property: Schema, metas: ValidatorMetadata[]): void {
  // a `$ref` or composed property is another schema's business
  if (!property.type && !property.items) return;
  for (const meta of metas) {
    const target =
      meta.each && property.items && !('$ref' in property.items)
        ? (property.items as Schema)
        : property;
    applyConstraint(target, meta);
  }
  for (const s of [property, property.items as Schema | undefined]) {
    if (s && typesOf(s).includes('integer')) integerFormat(s);
  }
}

export function applyValidators(schemas: Record<string, Schema>, bodies: readonly object[]): void {
  for (const [name, { target, metas }] of validatedClasses(bodies)) {
    const schema = schemas[name];
    if (!schema?.properties) continue;
    const minFields = minFieldsOf(target);
    if (minFields !== undefined) schema.minProperties = minFields;
    const byProperty = new Map<string, ValidatorMetadata[]>();
    for (const m of metas)
      byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
    for (const [property, own] of byProperty) {
      const propertySchema = schema.properties[property] as Schema | undefined;
      if (propertySchema) applyProperty(propertySchema, own);
    }
  }
}
