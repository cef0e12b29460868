import { Module } from '@nestjs/common';
import { NotFoundController } from './not-found.controller.js';

/** Must be the last module imported by AppModule so its catch-all route is registered last. */
@Module({ controllers: [NotFoundController] })
export class NotFoundModule {}
