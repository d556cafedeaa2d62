import { execFile } from 'node:child_process';

/** Runs promtool (Debian's prometheus package); resolves with its exit code and everything it printed. */
export function promtool(args: string[], stdin?: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile('promtool', args, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? Number(error.code) : 0, output: `${stdout}${stderr}` });
    });
    child.stdin!.end(stdin ?? '');
  });
}
