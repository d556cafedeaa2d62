import { spawn, type ChildProcess } from 'node:child_process';
import { ServiceError } from '../../lib/errors/index.js';

export interface VirtualDisplay {
  /** The DISPLAY value, e.g. `:99`. */
  readonly display: string;
  close(): Promise<void>;
}

/**
 * Starts `Xvfb` on the first free display number (Xvfb picks it and reports it on `-displayfd`),
 * 1920x1080, no TCP listener.
 */
export async function startVirtualDisplay(xvfbPath = '/usr/bin/Xvfb', timeoutMs = 10_000): Promise<VirtualDisplay> {
  const child: ChildProcess = spawn(
    xvfbPath,
    ['-displayfd', '3', '-screen', '0', '1920x1080x24', '-nolisten', 'tcp'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const displayNumber = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error('Xvfb did not report a display in time')), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited with code ${code}`));
    });
    child.stdio[3]?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) {
        clearTimeout(timer);
        resolve(output.trim());
      }
    });
  }).catch(async (error: unknown) => {
    if (child.pid) killTree(child.pid);
    await exited;
    throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'No virtual display for a headful browser', { cause: error });
  });
  child.stderr?.resume();
  return {
    display: `:${displayNumber}`,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        killTree(child.pid);
        await exited;
      }
    },
  };
}

function killTree(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
