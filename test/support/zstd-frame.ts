/**
 * Wraps bytes in a valid Zstandard frame made of raw (stored) blocks. Node 20 cannot compress zstd;
 * a stored frame still exercises the decoder's framing, which is what the tests need.
 */
export function zstdStoredFrame(content: Buffer): Buffer {
  if (content.length > 65_791) throw new Error('zstdStoredFrame: content too large for a 2-byte size field');
  const small = content.length < 256;
  const header = small
    ? Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, content.length])
    : Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x60, (content.length - 256) & 0xff, (content.length - 256) >> 8]);
  const blockHeader = (content.length << 3) | 1; // last block, raw type
  const block = Buffer.from([blockHeader & 0xff, (blockHeader >> 8) & 0xff, (blockHeader >> 16) & 0xff]);
  return Buffer.concat([header, block, content]);
}
