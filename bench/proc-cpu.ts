import { readFileSync } from 'node:fs';

/** Linux counts utime and stime in clock ticks of 100 per second. */
const MICROS_PER_TICK = 10_000;

/**
 * CPU microseconds (user + system) a process or thread has used so far, from its /proc stat file
 * (`/proc/PID/stat`, `/proc/PID/task/TID/stat`); null when it has ended or there is no /proc. The
 * command name in parentheses may hold spaces and parentheses, so fields count from the last ')'.
 */
/** CPU microseconds used so far by the given processes together (one that has ended counts 0). */
export function processesCpuMicros(pids: number[]): number {
  return pids.reduce((total, pid) => total + (procCpuMicros(`/proc/${pid}/stat`) ?? 0), 0);
}

export function procCpuMicros(statPath: string): number | null {
  let stat: string;
  try {
    stat = readFileSync(statPath, 'utf8');
  } catch {
    return null;
  }
  // utime and stime are fields 14 and 15 of the file, 12th and 13th after the name.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK;
}
