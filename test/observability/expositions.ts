import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../lib/ids.js';
import { FakeApiServer } from '../operator/support/fake-api-server.js';
import { scrapeEngine, workerPool } from '../operator/support/operator-run.js';
import { byMessage, startProgram, type Program } from '../support/programs.js';
import { createTestDatabase, NATS_URL } from '../support/services.js';

export type ProcessKind = 'gateway' | 'fetch worker' | 'chromium worker' | 'operator';

/** The /metrics text of each kind of Trawler process, each started as the real program. */
export interface Expositions {
  texts: Record<ProcessKind, string>;
  close(): Promise<void>;
}

async function scrapeMetrics(program: Program): Promise<string> {
  const line = await program.waitForLog(byMessage('metrics listening'), 180_000);
  const response = await fetch(`http://127.0.0.1:${String(line.port)}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}

export async function collectExpositions(): Promise<Expositions> {
  const dir = mkdtempSync(join(tmpdir(), 'trawler-metrics-'));
  const database = await createTestDatabase();
  const api = new FakeApiServer();
  await api.start();
  api.store.create('scrapeengines', 'scraping', scrapeEngine('fetch', { engine: 'fetch', capacity: 8 }));
  api.store.create('workerpools', 'scraping', workerPool('default', { engineRef: { name: 'fetch' }, replicas: 2 }));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, api.kubeConfig('scraping').exportConfig());
  // A managed pool, so the gateway declares the pool's metrics too (they are not exposed without one).
  const poolFile = join(dir, 'pools.json');
  writeFileSync(poolFile, JSON.stringify({ exits: [{ id: 'dc', url: 'http://127.0.0.1:9', tier: 'datacenter' }] }));
  const common = { HOST: '127.0.0.1', METRICS_PORT: '0', LOG_LEVEL: 'info' };
  const bus = { NATS_URL, NATS_NAMESPACE: `metrics-${newId().toLowerCase()}` };
  const programs: Program[] = [];
  const start = (args: string[], env: Record<string, string>) => {
    const program = startProgram(args, { ...common, ...env });
    programs.push(program);
    return program;
  };
  try {
    const gateway = start(['gateway'], { DATABASE_URL: database.url, PORT: '0', PROXY_POOLS_FILE: poolFile, ...bus });
    const fetchWorker = start(['worker', '--engine', 'fetch'], bus);
    const chromiumWorker = start(['worker', '--engine', 'chromium'], bus);
    const operator = start(['operator'], { KUBECONFIG: kubeconfig, METRICS_HOST: '127.0.0.1', WATCH_NAMESPACE: 'scraping' });
    const texts: Record<ProcessKind, string> = {
      gateway: await scrapeMetrics(gateway),
      'fetch worker': await scrapeMetrics(fetchWorker),
      'chromium worker': await scrapeMetrics(chromiumWorker),
      operator: await scrapeMetrics(operator),
    };
    return { texts, close: () => stopAll(programs, api, dir, database.drop) };
  } catch (error) {
    await stopAll(programs, api, dir, database.drop);
    throw error;
  }
}

async function stopAll(programs: Program[], api: FakeApiServer, dir: string, dropDatabase: () => Promise<void>): Promise<void> {
  for (const program of programs) program.kill('SIGTERM');
  await Promise.all(programs.map((p) => p.exited));
  await api.close();
  await dropDatabase();
  rmSync(dir, { recursive: true, force: true });
}

/** Metric family names an exposition declares (`# TYPE name type`), with their types. */
export function declaredFamilies(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(match[1]!, match[2]!);
  return families;
}
