import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliUsageError } from './exit-codes.js';

/**
 * Refuses an `-o` path the command could not write, before anything is sent: a scrape is billed and a
 * batch job submitted whether or not its answer can be saved afterwards. `-` (stdout) and no path pass.
 */
export function ensureWritable(path: string | undefined): void {
  if (path === undefined || path === '-') return;
  const target = resolve(path);
  try {
    const stats = statSync(target, { throwIfNoEntry: false });
    if (stats?.isDirectory()) throw new Error('it is a directory');
    accessSync(stats ? target : dirname(target), constants.W_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its folder does not exist' : (error as Error).message;
    throw new CliUsageError(`-o ${path}: cannot write there (${reason}); nothing was sent`);
  }
}
