// Several threads: two workers hit one breakpoint; pause stops every thread at once and each one's stack
// is there; disconnect with terminateDebuggee ends the program (pytest checks the JVM is gone).
import { assert, scenario, launchTo, line, source } from './lib.mjs';

await scenario('launch_threads', async (s) => {
  await launchTo(s, 'DapShowcase', { DapShowcase: [{ line: line('dap-worker') }] }, { args: ['threads', cfg_token()] });
  const first = await s.next('stopped', (e) => e.body.reason === 'breakpoint');
  // The other worker's hit is reported either at once (it stopped too) or after continuing.
  const already = s.log.find((e) => e.event === 'stopped' && e.body.threadId !== first.body.threadId);
  if (!already) await s.dc.continueRequest({ threadId: first.body.threadId });
  const second = await s.next('stopped', (e) => e.body.threadId !== first.body.threadId);
  assert.equal(second.body.reason, 'breakpoint');

  const threads = (await s.dc.threadsRequest()).body.threads;
  const byId = Object.fromEntries(threads.map((t) => [t.id, t.name]));
  assert.deepEqual([byId[first.body.threadId], byId[second.body.threadId]].sort(), ['dap-worker-1', 'dap-worker-2']);
  const st = await s.dc.stackTraceRequest({ threadId: second.body.threadId, startFrame: 0, levels: 3 });
  assert.deepEqual([st.body.stackFrames[0].name, st.body.stackFrames[0].line], ['DapShowcase.worker', line('dap-worker')]);
  assert.equal(st.body.stackFrames[0].source.path, source('DapShowcase'));

  // No more breakpoints; everything runs; pause stops all threads at once.
  await s.dc.setBreakpointsRequest({ source: { path: source('DapShowcase') }, breakpoints: [] });
  await s.dc.continueRequest({ threadId: second.body.threadId });
  await s.next('continued');
  const paused = await (async () => {
    for (;;) {  // a stop reported before the continue (the queued hit) is not the pause
      await s.dc.pauseRequest({ threadId: first.body.threadId });
      const stop = await s.next('stopped', (e) => e.body.reason === 'pause' || e.body.reason === 'breakpoint');
      if (stop.body.reason === 'pause') return stop;
      await s.dc.continueRequest({ threadId: stop.body.threadId });
    }
  })();
  assert.equal(paused.body.allThreadsStopped, true);
  for (const id of [first.body.threadId, second.body.threadId]) {
    const frames = (await s.dc.stackTraceRequest({ threadId: id, startFrame: 0, levels: 5 })).body.stackFrames;
    assert.ok(frames.some((f) => f.name === 'DapShowcase.worker'), JSON.stringify(frames));
  }
  await s.dc.disconnectRequest({ terminateDebuggee: true });
});

function cfg_token() {
  return JSON.parse(process.env.DAP_TEST_CONFIG).token;
}
