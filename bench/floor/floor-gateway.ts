/**
 * The gateway of the architecture floor (bench/floor/start-floor.ts): a bare node:http server that, per
 * POST, parses the JSON body, holds with one asynchronously committed statement, sends the job over
 * NATS to the floor worker, settles with one synchronously committed statement and answers the page as
 * JSON: the hops of a distributed scrape with no Trawler code on them.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { connect, JSONCodec } from 'nats';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('CREATE TABLE IF NOT EXISTS floor_holds (id text PRIMARY KEY, amount bigint NOT NULL, charged bigint)');
const nc = await connect({ servers: process.env.NATS_URL });
const codec = JSONCodec();

async function scrape(body: { url: string }): Promise<unknown> {
  const id = randomUUID();
  await pool.query({
    name: 'floor_hold',
    text: `WITH held AS (INSERT INTO floor_holds (id, amount) VALUES ($1, 1000) RETURNING id)
           SELECT 1 FROM held, (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`,
    values: [id],
  });
  const reply = await nc.request(`${process.env.FLOOR_SUBJECT}`, codec.encode({ url: body.url }), { timeout: 30_000 });
  await pool.query({ name: 'floor_settle', text: 'UPDATE floor_holds SET charged = 1000 WHERE id = $1', values: [id] });
  return codec.decode(reply.data);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    scrape(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { url: string })
      .then((answer) => {
        const out = JSON.stringify(answer);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
        res.end(out);
      })
      .catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`floor gateway listening on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => {
  server.close();
  void Promise.all([nc.close(), pool.end()]).then(() => process.exit(0));
});
