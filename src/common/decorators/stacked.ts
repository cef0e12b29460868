/**
 * Applies decorators as if stacked on the property, listed top to bottom: the bottom one first.
 * Nest's `applyDecorators` applies them in the order listed, which reverses the order in which
 * validators register (and so the order of their messages).
 */
export function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, propertyKey) => {
    for (const decorator of [...decorators].reverse()) decorator(target, propertyKey);
  };
}
