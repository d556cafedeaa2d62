import { afterEach, describe, expect, it } from 'vitest';
import { drainResults, START } from '../../cli/batch/results.js';
import { ApiClient } from '../../cli/client.js';
import { startFakeGateway, type FakeGateway } from './fake-gateway.js';

let gateway: FakeGateway | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
});

const line = (seq: number) => `${JSON.stringify({ seq, url: `https://a.example/${seq}`, status: 'succeeded', credits_micro: 1_000_000 })}\n`;

describe('following the results cursor', () => {
  it('keeps its place, and never writes a line twice when the job ends between two pages', async () => {
    gateway = await startFakeGateway([
      { status: 200, headers: { 'x-next-cursor': 'c1' }, body: line(0) + line(1) },
      // the job ended meanwhile: the next page is the last one, without a cursor
      { status: 200, body: line(2) },
      // the next poll asks from c1 again and gets seq 2 once more
      { status: 200, body: line(2) + line(3) },
    ]);
    const client = new ApiClient({ apiUrl: gateway.url, apiKey: 'k', timeoutMs: 5000 });
    const written: number[] = [];
    const sink = async (lines: string[]) => void written.push(...lines.map((l) => (JSON.parse(l) as { seq: number }).seq));
    const first = await drainResults(client, 'JOB', START, sink);
    expect(first).toEqual({ cursor: 'c1', lastSeq: 2 });
    const second = await drainResults(client, 'JOB', first, sink);
    expect(second).toEqual({ cursor: 'c1', lastSeq: 3 });
    expect(written).toEqual([0, 1, 2, 3]);
    expect(gateway.requests.map((r) => r.path)).toEqual(['/v1/batch/JOB/results?limit=500', '/v1/batch/JOB/results?limit=500&cursor=c1', '/v1/batch/JOB/results?limit=500&cursor=c1']);
  });
});
