import {
  type Abstract,
  type DynamicModule,
  type INestApplication,
  Module,
  type Type,
} from '@nestjs/common';
import { SHARED_SERVICES } from './shared-services.js';

/** What the owning application runs; the platform application must not run it again. */
const LIFECYCLE = new Set<string | symbol>([
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

/**
 * The instance as the platform application sees it: every member but the lifecycle hooks, which
 * the integration application, its owner, calls once (a second call would start a second worker
 * or close a pool twice). Methods are bound to the instance, so private fields keep working.
 */
function borrowed<T extends object>(instance: T): T {
  const bound = new Map<string | symbol, unknown>();
  return new Proxy(instance, {
    get(target, property) {
      if (LIFECYCLE.has(property)) return undefined;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) {
        method = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(property, method);
      }
      return method;
    },
  });
}

/**
 * Hands the platform application the integration application's service instances
 * (`SHARED_SERVICES`); the modules that use them import the one module `from` made. In preview mode (the OpenAPI export) no provider is made, so `owner` is
 * never asked.
 */
@Module({})
export class SharedServicesModule {
  static from(owner: INestApplication): DynamicModule {
    const providers = SHARED_SERVICES.map((service: Type | Abstract<unknown>) => ({
      provide: service,
      useFactory: () => borrowed<object>(owner.get(service, { strict: false })),
    }));
    return { module: SharedServicesModule, providers, exports: SHARED_SERVICES };
  }
}
