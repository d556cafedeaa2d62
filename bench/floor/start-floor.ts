/**
 * The architecture's floor for the fetch tier: the hops a distributed scrape takes (client -> HTTP
 * gateway -> PostgreSQL hold -> NATS -> worker -> page -> NATS -> PostgreSQL settlement -> client) in
 * two processes of bare node:http, pg, nats and undici, with no Trawler code on them. What distributed
 * mode adds above this is Trawler's own; what this adds above a direct fetch, the design's.
 */
import { join } from 'node:path';
import { newId } from '../../lib/ids.js';
import { NATS_URL, createTestDatabase, distributedServicesAvailable } from '../../test/support/services.js';
import { startProcess, stopAll, type ServiceProcesses } from '../distributed.js';

/** Null when PostgreSQL or NATS is not reachable. */
export async function startArchitectureFloor(): Promise<ServiceProcesses | null> {
  if (!(await distributedServicesAvailable())) return null;
  const database = await createTestDatabase();
  const env = { DATABASE_URL: database.url, NATS_URL, FLOOR_SUBJECT: `floor.${newId().toLowerCase()}` };
  const here = join(process.cwd(), 'bench/floor');
  const gateway = startProcess([], env, join(here, 'floor-gateway.ts'));
  const url = await gateway.line(/floor gateway listening on (\S+)/);
  const worker = startProcess([], env, join(here, 'floor-worker.ts'));
  await worker.line(/floor worker ready/);
  return {
    url,
    secret: 'none',
    pids: [gateway.child.pid!, worker.child.pid!],
    databaseUrl: database.url,
    async stop() {
      await stopAll([worker.child, gateway.child]);
      await database.drop();
    },
  };
}
