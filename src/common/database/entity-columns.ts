import {
  Column,
  CreateDateColumn,
  ForeignKey,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/**
 * The columns most tables share, as property decorators, so an entity states only what is
 * particular to it. Each one must declare exactly what the migrations create: `check:schema`
 * compares them.
 */

/** Applies decorators as if stacked on the property, listed top to bottom. */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, propertyKey) => {
    for (const decorator of [...decorators].reverse()) decorator(target, propertyKey);
  };
}

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
