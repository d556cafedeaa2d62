/**
 * The fetch worker of the architecture floor (bench/floor/start-floor.ts): takes a job from NATS in a
 * queue group, fetches its URL with undici, answers the body as JSON. No Trawler code.
 */
import { connect, JSONCodec } from 'nats';
import { request } from 'undici';

const codec = JSONCodec<{ url: string }>();
const nc = await connect({ servers: process.env.NATS_URL });
nc.subscribe(`${process.env.FLOOR_SUBJECT}`, {
  queue: 'floor',
  callback: (error, msg) => {
    if (error) return;
    const { url } = codec.decode(msg.data);
    void request(url)
      .then(async (response) => ({ status: response.statusCode, body: await response.body.text() }))
      .then((answer) => msg.respond(JSONCodec().encode(answer)))
      .catch((failure: unknown) => msg.respond(JSONCodec().encode({ error: String(failure) })));
  },
});
await nc.flush();
console.log('floor worker ready');
process.on('SIGTERM', () => void nc.close().then(() => process.exit(0)));
