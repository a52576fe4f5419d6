/**
 * A GroupSession over a child process that prints one JSON event per line and takes
 * commands on stdin (BenchGroup.java, bench/python/group_members.py).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sampleRss } from '../lib/rss.js';
import type { GroupEvent, GroupSession } from './types.js';

export function eventProcess(cmd: string, args: readonly string[], initialMembers: number): GroupSession {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const events: GroupEvent[] = [];
  let stderr = '';
  let waiters: (() => void)[] = [];
  const wake = (): void => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-8000); });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    events.push(JSON.parse(line) as GroupEvent);
    wake();
  });
  let exited = false;
  const closed = new Promise<void>((resolve) => child.on('close', () => { exited = true; wake(); resolve(); }));
  const rss = sampleRss(child.pid!, 200);
  let next = initialMembers;
  return {
    events,
    nextEvent: (ms) => {
      if (exited) return Promise.reject(new Error(`${cmd} exited: ${stderr.slice(-2000)}`));
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    },
    leave: (m) => { child.stdin.write(`leave ${m}\n`); },
    join: () => {
      child.stdin.write('join\n');
      return next++;
    },
    rssBytes: () => rss.peak(),
    close: async () => {
      rss.stop();
      child.stdin.end('quit\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await closed;
      clearTimeout(timer);
    },
  };
}
