import { generateApiKey } from '../../lib/apikeys.js';
import { newId } from '../../lib/ids.js';
import { byMessage, startProgram, type Program } from './programs.js';
import { NATS_URL, createTestDatabase } from './services.js';

export interface Gateway {
  program: Program;
  url: string;
}

/**
 * The programs of one distributed suite as separate processes: gateways and workers over NATS (a bus
 * namespace of their own) and one PostgreSQL database of their own, with one live key that the first
 * gateway bootstraps. `secret` is known at once; `open()` makes the database (in beforeAll), `close()`
 * kills every program started and drops it (in afterAll).
 */
export class DistributedPrograms {
  readonly secret = generateApiKey('live');
  readonly namespace = `t${newId().toLowerCase()}`;
  /** Every program started, in order. */
  readonly programs: Program[] = [];
  private database: { url: string; drop(): Promise<void> } | null = null;

  /** `shared`: settings of this suite that every program gets (shutdown grace, budgets). */
  constructor(private readonly shared: Record<string, string> = {}) {}

  get databaseUrl(): string {
    if (!this.database) throw new Error('open() the distributed programs first');
    return this.database.url;
  }

  async open(): Promise<void> {
    this.database = await createTestDatabase();
  }

  /** What every program of the suite runs with, `extra` on top. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      NATS_URL,
      NATS_NAMESPACE: this.namespace,
      HOST: '127.0.0.1',
      TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true',
      HEARTBEAT_INTERVAL_MS: '300',
      ...this.shared,
      ...extra,
    };
  }

  /** A gateway on a free port, on the suite's database with its key; resolves once it listens. */
  async startGateway(extra: Record<string, string> = {}): Promise<Gateway> {
    const program = this.start(['gateway'], this.env({ DATABASE_URL: this.databaseUrl, PORT: '0', TRAWLER_BOOTSTRAP_KEY: this.secret, ...extra }));
    const listening = await program.waitForLog(byMessage('gateway listening'));
    return { program, url: String(listening.url) };
  }

  /** A worker of `engine`; resolves once its metrics listen. */
  async startWorker(engine = 'fetch', extra: Record<string, string> = {}): Promise<Program> {
    const worker = this.start(['worker', '--engine', engine], this.env({ METRICS_PORT: '0', ...extra }));
    await worker.waitForLog(byMessage('metrics listening'));
    return worker;
  }

  /** The workers a gateway lists (GET /v1/workers with the suite's key). */
  async workers(gatewayUrl: string): Promise<Array<{ id: string; engine: string; status: string }>> {
    const response = await fetch(`${gatewayUrl}/v1/workers`, { headers: { authorization: `Bearer ${this.secret}` } });
    return ((await response.json()) as { workers: Array<{ id: string; engine: string; status: string }> }).workers;
  }

  async close(): Promise<void> {
    for (const program of this.programs) program.kill('SIGKILL');
    await Promise.all(this.programs.map((program) => program.exited));
    await this.database?.drop();
  }

  private start(args: string[], env: Record<string, string>): Program {
    const program = startProgram(args, env);
    this.programs.push(program);
    return program;
  }
}
