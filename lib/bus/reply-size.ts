/**
 * A cheap estimate of a JSON value's encoded size, for the in-process bus's reply budget: what a NATS
 * peer would count after encoding, without encoding. Strings count their UTF-8 bytes plus quotes,
 * keys likewise, other leaves and punctuation a few bytes; JSON escapes (`\"`, `\n`, `\u0000`) are not
 * counted, so an escaped string may be a little more on NATS. The walk stops once past `limit`.
 */
const LEAF_BYTES = 8;

export function estimateJsonBytes(value: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limit) {
    const item = stack.pop();
    if (typeof item === 'string') total += Buffer.byteLength(item, 'utf8') + 3;
    else if (ArrayBuffer.isView(item)) total += item.byteLength;
    else if (Array.isArray(item)) {
      total += 2;
      for (const inner of item) stack.push(inner);
    } else if (item !== null && typeof item === 'object') {
      total += 2;
      for (const [key, inner] of Object.entries(item)) {
        if (inner === undefined) continue;
        total += Buffer.byteLength(key, 'utf8') + 3;
        stack.push(inner);
      }
    } else total += LEAF_BYTES;
  }
  return total;
}
