/** Bounds what is kept of a request head: Node's parser refuses heads over 16 KiB anyway. */
export const HEAD_SCAN_BYTES = 16_384;

const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const EMPTY = Buffer.alloc(0);

type Phase =
  /** Reading a request head; `head` holds its bytes so far (at most HEAD_SCAN_BYTES). */
  | { kind: 'head' }
  /** Skipping a Content-Length body. */
  | { kind: 'body'; left: number }
  /** Reading a chunk-size line of a chunked body (`line` holds it so far). */
  | { kind: 'chunk-size'; line: string }
  /** Skipping a chunk's data and the CRLF after it. */
  | { kind: 'chunk-data'; left: number }
  /** Reading trailer lines up to the empty line that ends the chunked body. */
  | { kind: 'trailers'; line: string }
  /** Not HTTP any more (CONNECT, Upgrade) or out of step: nothing is kept. */
  | { kind: 'lost' };

/**
 * Follows the request messages on one connection, byte for byte as Node's parser frames them, and
 * keeps the head of the message under way: Node's parser keeps the header lines of earlier TCP
 * segments to itself, and its error shows only the segment it failed on, so a refused request's own
 * head (request line, Authorization) is read from here. Bodies are skipped by their length (chunked:
 * by the chunk sizes), never scanned or copied; a head is copied only while it spans segments.
 * Messages it sees have passed Node's parser, so their framing headers are well-formed.
 */
export class MessageHeads {
  private phase: Phase = { kind: 'head' };
  /** The head of the message under way: its bytes while being read, the whole head during its body. */
  private head: Buffer = EMPTY;
  /** False while `head` is a view of a segment's buffer (copied before the segment is let go). */
  private headOwned = true;
  /** The head's last bytes so far (at most three), for a blank line split across segments. */
  private tail = '';

  get lost(): boolean {
    return this.phase.kind === 'lost';
  }

  /** True while the bytes followed are a message's body (its head complete). */
  get inBody(): boolean {
    return this.phase.kind !== 'head' && this.phase.kind !== 'lost';
  }

  /** Follows `bytes`, the next bytes the connection received. */
  take(bytes: Buffer): void {
    let at = 0;
    while (at < bytes.length && this.phase.kind !== 'lost') at = this.step(bytes, at);
    // A head kept past this segment (still being read, or its body goes on) must not hold on to the segment.
    if (!this.headOwned) {
      this.head = Buffer.from(this.head);
      this.headOwned = true;
    }
  }

  /**
   * The head of the message the parser refused: the head under way (or, when the error is in a body,
   * the head of that body's message), followed by `after`, the rest of the failing segment from the
   * error on (its lines up to the blank line still belong to that head).
   */
  refusedHead(after: Buffer | undefined): Buffer {
    if (after === undefined || after.length === 0 || this.phase.kind !== 'head') return this.head;
    return Buffer.concat([this.head, after.subarray(0, Math.max(0, HEAD_SCAN_BYTES - this.head.length))]);
  }

  private step(bytes: Buffer, at: number): number {
    const phase = this.phase;
    switch (phase.kind) {
      case 'head':
        return this.readHead(bytes, at);
      case 'body':
      case 'chunk-data': {
        const skipped = Math.min(phase.left, bytes.length - at);
        phase.left -= skipped;
        if (phase.left === 0) this.phase = phase.kind === 'body' ? this.nextMessage() : { kind: 'chunk-size', line: '' };
        return at + skipped;
      }
      case 'chunk-size':
      case 'trailers':
        return this.readLine(bytes, at, phase);
      default:
        return bytes.length;
    }
  }

  private readHead(bytes: Buffer, at: number): number {
    let end = -1;
    // A blank line may straddle segments: the last bytes of the head so far, then this segment's first.
    if (this.tail !== '') {
      const joint = (this.tail + bytes.toString('latin1', at, at + 3)).indexOf('\r\n\r\n');
      if (joint >= 0) end = at + joint + 4 - this.tail.length;
    }
    if (end < 0) {
      const blank = bytes.indexOf(HEAD_END, at);
      if (blank >= 0) end = blank + HEAD_END.length;
    }
    const stop = end < 0 ? bytes.length : end;
    this.keepHead(bytes, at, stop);
    if (end < 0) {
      this.tail = (this.tail + bytes.toString('latin1', Math.max(at, stop - 3), stop)).slice(-3);
      return stop;
    }
    this.tail = '';
    this.phase = this.bodyOf(this.head.toString('latin1'));
    return stop;
  }

  private keepHead(bytes: Buffer, from: number, to: number): void {
    const room = HEAD_SCAN_BYTES - this.head.length;
    const piece = bytes.subarray(from, from + Math.max(0, Math.min(room, to - from)));
    if (this.head.length === 0) {
      this.head = piece;
      this.headOwned = false;
    } else if (piece.length > 0) {
      this.head = Buffer.concat([this.head, piece]);
      this.headOwned = true;
    }
  }

  private readLine(bytes: Buffer, at: number, phase: { kind: 'chunk-size' | 'trailers'; line: string }): number {
    const lf = bytes.indexOf(LF, at);
    const stop = lf < 0 ? bytes.length : lf + 1;
    // A chunk-size line is short (hex and extensions); a longer one is not followed (out of step).
    phase.line = (phase.line + bytes.toString('latin1', at, Math.min(stop, at + 1024))).slice(0, 1024);
    if (lf < 0) return stop;
    const line = phase.line.replace(/\r?\n$/, '');
    if (phase.kind === 'trailers') {
      this.phase = line === '' ? this.nextMessage() : { kind: 'trailers', line: '' };
      return stop;
    }
    const size = Number.parseInt(line.split(';')[0]?.trim() ?? '', 16);
    if (!Number.isFinite(size)) this.phase = { kind: 'lost' };
    else this.phase = size === 0 ? { kind: 'trailers', line: '' } : { kind: 'chunk-data', left: size + 2 };
    return stop;
  }

  private nextMessage(): Phase {
    this.head = EMPTY;
    this.headOwned = true;
    return { kind: 'head' };
  }

  /** What follows a complete head, from its framing headers (RFC 9112 section 6.3, requests). */
  private bodyOf(head: string): Phase {
    let length = 0;
    let chunked = false;
    let upgrade = /^CONNECT /.test(head);
    for (const line of head.split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked\s*$/.test(value);
      else if (name === 'upgrade') upgrade = true;
    }
    // After CONNECT or an Upgrade the bytes are the tunnel's, not HTTP.
    if (upgrade) return { kind: 'lost' };
    if (chunked) return { kind: 'chunk-size', line: '' };
    if (Number.isFinite(length) && length > 0) return { kind: 'body', left: length };
    return this.nextMessage();
  }
}
