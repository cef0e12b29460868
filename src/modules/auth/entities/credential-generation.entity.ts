import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row, one number: bumped by triggers on every change that can alter a verified credential
 * (migration 1764000300000); services compare it with the generation their cache was filled at.
 */
@Entity('credential_generation')
@Check('credential_generation_singleton_check', 'singleton')
export class CredentialGeneration {
  /** Always true: the primary key and its check allow exactly one row. */
  @PrimaryColumn({ type: 'boolean', default: true })
  singleton!: boolean;

  /** `bigint` arrives from pg as a string. */
  @Column('bigint')
  value!: string;
}
