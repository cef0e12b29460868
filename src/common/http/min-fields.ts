const MIN_FIELDS = 'app:min-fields';

/**
 * Records that a body must name at least `count` of its fields (a PATCH with nothing to change is
 * refused by its service): the OpenAPI export publishes it as `minProperties`.
 */
export function MinFields(count: number): ClassDecorator {
  return (target) => Reflect.defineMetadata(MIN_FIELDS, count, target);
}

export function minFieldsOf(target: object): number | undefined {
  return Reflect.getOwnMetadata(MIN_FIELDS, target) as number | undefined;
}
