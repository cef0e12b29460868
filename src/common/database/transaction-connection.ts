import type { Client as PgFullClient, ClientBase as PgClient, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';

/** A pooled connection and the function that gives it back (pass an error to discard it). */
export type PooledConnection = [PgClient, (broken?: unknown) => void];

/**
 * A pooled connection of `dataSource` and the function that returns it. While it is out, an error
 * the connection itself emits (the server or a pooler closed it) is caught and discards it: the
 * pool listens only to idle connections, and an unheard 'error' event would end the process. The
 * query in flight fails with that error as well.
 */
export async function pooledConnection(dataSource: DataSource): Promise<PooledConnection> {
  const [client, release] = await (
    dataSource.driver as unknown as { obtainMasterConnection(): Promise<PooledConnection> }
  ).obtainMasterConnection();
  let lost: unknown;
  const onError = (err: unknown) => {
    lost = err ?? new Error('connection lost');
  };
  client.on('error', onError);
  return [
    client,
    (broken?: unknown) => {
      client.removeListener('error', onError);
      release(broken ?? lost);
    },
  ];
}

/**
 * Rolls back whatever is open on `client`; answers the error when even that fails (the
 * connection is then discarded rather than returned to the pool), else undefined.
 */
export async function rollback(client: PgClient): Promise<unknown> {
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (err) {
    return err ?? new Error('ROLLBACK failed');
  }
}

/** Whether the pool made `client` with `pipeline: true` (data-source-options.ts). */
export function pipelines(client: PgClient): boolean {
  return (client as Partial<Pick<PgFullClient, 'pipeline'>>).pipeline === true;
}

/**
 * Resolves once `commit` has committed. A COMMIT the server answers with ROLLBACK (the
 * transaction had failed: a pipelined statement's error) is a failure, never a success.
 */
export async function committed(commit: Promise<unknown>): Promise<void> {
  const { command } = (await commit) as QueryResult;
  if (command !== 'COMMIT') throw new Error(`the transaction did not commit (${command})`);
}
