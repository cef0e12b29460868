import {
  Check,
  Column,
  CreateDateColumn,
  ForeignKey,
  Index,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { EXTERNAL_ID_CHECK } from './external-id.js';
import { stacked } from '../decorators/stacked.js';

/**
 * The columns most tables share, as property decorators, so an entity states only what is
 * particular to it. Each one must declare exactly what the migrations create: `check:schema`
 * compares them.
 */

/** `id serial PRIMARY KEY`. */
export const IdColumn = (): PropertyDecorator => PrimaryGeneratedColumn();

/** `id bigserial PRIMARY KEY`; `bigint` arrives from pg as a string. */
export const BigIdColumn = (): PropertyDecorator => PrimaryGeneratedColumn({ type: 'bigint' });

/**
 * `tenant_id int NOT NULL REFERENCES tenants`, its constraint named as PostgreSQL names it
 * (`<table>_tenant_id_fkey`); `nullable` for rows written before a tenant is known, `primary` when
 * it leads a composite primary key.
 */
export const TenantIdColumn = (
  table: string,
  options: { nullable?: true; primary?: true } = {},
): PropertyDecorator =>
  stacked(
    options.primary
      ? PrimaryColumn({ name: 'tenant_id', type: 'int' })
      : Column({ name: 'tenant_id', type: 'int', nullable: options.nullable ?? false }),
    ForeignKey('tenants', { name: `${table}_tenant_id_fkey` }),
  );

/** `created_at timestamptz NOT NULL DEFAULT now()`. */
export const CreatedAtColumn = (): PropertyDecorator =>
  CreateDateColumn({ name: 'created_at', type: 'timestamptz' });

/** `updated_at timestamptz NOT NULL DEFAULT now()`, set by TypeORM on every save. */
export const UpdatedAtColumn = (): PropertyDecorator =>
  UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' });

/** The host platform's own id of the row (migration 1764003300000); null when made otherwise. */
export const ExternalIdColumn = (): PropertyDecorator =>
  Column({ name: 'external_id', type: 'text', nullable: true });

/**
 * The class side of `ExternalIdColumn`: the id is unique per tenant where set
 * (`<table>_external_id`) and is checked by `EXTERNAL_ID_CHECK` (`<table>_external_id_check`).
 */
export function ExternalIdConstraints(table: string): ClassDecorator {
  const unique = Index(`${table}_external_id`, ['tenantId', 'externalId'], {
    unique: true,
    where: 'external_id IS NOT NULL',
  });
  const check = Check(`${table}_external_id_check`, EXTERNAL_ID_CHECK);
  return (target) => {
    // as the two stood stacked on the class: the check first
    check(target);
    unique(target);
  };
}

/**
 * A list item kept as the JSON text the response sends (docs/contributors/architecture.md): written
 * only by a trigger, never by TypeORM, and read only by the list's SQL.
 */
export const TriggerJsonColumn = (name: string): PropertyDecorator =>
  Column({ name, type: 'text', select: false, insert: false, update: false });
