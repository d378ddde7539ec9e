// A process's memory and CPU during a measure, read from /proc/<pid>/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { round } from './stats.mjs';

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  /* Linux default */
}

/** CPU seconds (user, system) a process has used so far, from /proc/<pid>/stat. */
function cpuTimes(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / clockTicks, sys: Number(fields[12]) / clockTicks };
}

/**
 * One process during a phase: peak RSS (VmHWM after resetting it with clear_refs 5, and
 * VmRSS polled every 20 ms) and the CPU time it used (robust when the machine is busy).
 */
export class RssMonitor {
  constructor(pid) {
    this.pid = pid;
  }
  status() {
    const text = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  }
  start() {
    try {
      fs.writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      this.hwmReset = true;
    } catch {
      this.hwmReset = false;
    }
    const { rss } = this.status();
    this.before = rss;
    this.cpuBefore = cpuTimes(this.pid);
    this.polledPeak = rss;
    this.timer = setInterval(() => {
      try {
        this.polledPeak = Math.max(this.polledPeak, this.status().rss);
      } catch {
        /* process gone: the phase will fail on its own */
      }
    }, 20);
    // A phase that fails half-way must not keep the bench alive.
    this.timer.unref();
    return this;
  }
  stop() {
    clearInterval(this.timer);
    const { rss, hwm } = this.status();
    const peak = this.hwmReset ? Math.max(hwm, this.polledPeak) : this.polledPeak;
    const cpu = cpuTimes(this.pid);
    const [userS, sysS] = [cpu.user - this.cpuBefore.user, cpu.sys - this.cpuBefore.sys];
    return {
      beforeMb: round(this.before),
      peakMb: round(peak),
      afterMb: round(rss),
      hwmReset: this.hwmReset,
      cpuS: round(userS + sysS, 2),
      userS: round(userS, 2),
      sysS: round(sysS, 2),
    };
  }
}

/** How long the service idles before its RSS is read after a phase (its lowest reading is kept). */
export const IDLE_RSS_SECONDS = 5;
/** VmRSS read once a second for IDLE_RSS_SECONDS: memory freed late (GC, the allocator) counts. */
export async function idleRss(monitor) {
  const readingsMb = [];
  for (let s = 0; s < IDLE_RSS_SECONDS; s++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    readingsMb.push(round(monitor.status().rss));
  }
  return { lowestMb: Math.min(...readingsMb), readingsMb };
}
