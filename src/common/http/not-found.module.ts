import { type DynamicModule, Module } from '@nestjs/common';
import { notFoundController } from './not-found.controller.js';
import type { HttpPlatform } from './platform/http-platform.js';

/** Must be the last module imported by AppModule so its catch-all route is registered last. */
@Module({})
export class NotFoundModule {
  static register(platform: HttpPlatform, roots: readonly string[] = []): DynamicModule {
    return {
      module: NotFoundModule,
      controllers: [
        ...roots.map((root) => notFoundController(platform, root)),
        notFoundController(platform),
      ],
    };
  }
}
