// The benchmark harness's process helpers: CPU pinning (--broker-cpus/--client-cpus) and CPU time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { once } from 'node:events';
import { test } from 'node:test';
import { cpusOf, parseCpuList, pinProcess } from '../../bench/lib/cpu-affinity.js';
import { cpuMsOf } from '../../bench/lib/cpu-time.js';

const linux = process.platform === 'linux';

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

test('pinProcess pins every thread of a running process', { skip: !linux }, async () => {
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

test('pinProcess fails for a process that is gone and for CPUs the machine lacks', { skip: !linux }, () => {
  // taskset itself exits 0 for a missing process: the check reads the result back.
  assert.throws(() => pinProcess(2 ** 22 + 12345, '0'), /cannot pin process \d+ to CPUs 0: no such process/);
  assert.throws(() => pinProcess(process.pid, '0-4095'), /cannot pin process \d+ to CPUs 0-4095/);
});

test('cpuMsOf counts CPU time used, NaN for a process that is gone', { skip: !linux }, () => {
  const before = cpuMsOf(process.pid);
  const until = performance.now() + 100;
  while (performance.now() < until) { /* spin: use CPU */ }
  const after = cpuMsOf(process.pid);
  assert.ok(after - before >= 50, `spinning 100 ms used ${after - before} ms of CPU`);
  assert.ok(Number.isNaN(cpuMsOf(2 ** 22 + 12345)));
  assert.ok(Number.isNaN(cpuMsOf(undefined)));
});
