// The benchmark harness's process helpers: CPU pinning (--broker-cpus/--client-cpus) and CPU time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { once } from 'node:events';
import { test } from 'node:test';
import { cpusOf, parseCpuList, pinProcess } from '../../bench/lib/cpu-affinity.js';
import { cpuMsOf } from '../../bench/lib/cpu-time.js';

// pinProcess runs util-linux taskset and reads /proc; cpuMsOf reads /proc: Linux only, by design
// (the benchmark's pinning and CPU figures exist on Linux alone). CI runs on Linux.
const linuxOnly = process.platform !== 'linux' && `Linux only (taskset and /proc), this is ${process.platform}`;

test('parseCpuList accepts kernel CPU lists and rejects anything else', () => {
  assert.equal(parseCpuList(undefined, '--broker-cpus'), null);
  for (const ok of ['0', '1', '0-1', '0,2', '0-1,3,5-7']) assert.equal(parseCpuList(ok, '--broker-cpus'), ok);
  for (const bad of ['', 'a', '0-', ',1', '1,,2', '0 1', '-1']) {
    assert.throws(() => parseCpuList(bad, '--client-cpus'), /--client-cpus takes a CPU list/);
  }
});

test('cpusOf expands a CPU list in ascending order, once each', () => {
  assert.deepEqual(cpusOf('1'), [1]);
  assert.deepEqual(cpusOf('5,0-2'), [0, 1, 2, 5]);
  assert.deepEqual(cpusOf('0-1,1,0'), [0, 1]);
});

test('pinProcess pins every thread of a running process', { skip: linuxOnly }, async () => {
  // A node child has several threads (libuv pool, V8 workers): all must move.
  // It says when its script runs: node has started its threads by then.
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("ready"); setTimeout(() => {}, 60_000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await once(child.stdout!, 'data');
    pinProcess(child.pid!, '0');
    const tasks = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    assert.match(tasks, /^Cpus_allowed_list:\s+0$/m);
    const threads = readdirSync(`/proc/${child.pid}/task`);
    assert.ok(threads.length > 1, 'a node process has more than one thread');
    for (const t of threads) {
      assert.match(readFileSync(`/proc/${child.pid}/task/${t}/status`, 'utf8'), /^Cpus_allowed_list:\s+0$/m, `thread ${t}`);
    }
  } finally {
    child.kill();
    await once(child, 'exit');
  }
});

test('pinProcess fails for a process that is gone and for CPUs the machine lacks', { skip: linuxOnly }, () => {
  // taskset itself exits 0 for a missing process: the check reads the result back.
  assert.throws(() => pinProcess(2 ** 22 + 12345, '0'), /cannot pin process \d+ to CPUs 0: no such process/);
  assert.throws(() => pinProcess(process.pid, '0-4095'), /cannot pin process \d+ to CPUs 0-4095/);
});

test('cpuMsOf counts CPU time used, NaN for a process that is gone', { skip: linuxOnly }, () => {
  // The independent measure: getrusage(2) through process.cpuUsage(), in microseconds. Each
  // cpuMsOf reading is sandwiched between two of them, so however long the spin takes, the
  // difference of two cpuMsOf readings lies between the inner and the outer getrusage
  // differences, give or take the /proc rounding: utime and stime are each floored to a clock
  // tick (10 ms), so a reading is up to 20 ms low.
  const usageMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const TICK_ROUNDING_MS = 20;
  const u0 = usageMs();
  const before = cpuMsOf(process.pid);
  const u1 = usageMs();
  assert.ok(Number.isFinite(before) && before >= 0, `CPU time so far: ${before}`);
  // Spin until getrusage says 100 ms of CPU were used, however long that takes on this machine
  // (the test's timeout is the bound): far more than the rounding.
  while (usageMs() - u1 < 100) { /* spin: use CPU */ }
  const u2 = usageMs();
  const after = cpuMsOf(process.pid);
  const u3 = usageMs();
  const used = after - before;
  assert.ok(used >= u2 - u1 - TICK_ROUNDING_MS, `cpuMsOf counted ${used} ms, getrusage at least ${u2 - u1} ms`);
  assert.ok(used <= u3 - u0 + TICK_ROUNDING_MS, `cpuMsOf counted ${used} ms, getrusage at most ${u3 - u0} ms`);
  assert.ok(Number.isNaN(cpuMsOf(2 ** 22 + 12345)));
  assert.ok(Number.isNaN(cpuMsOf(undefined)));
});
