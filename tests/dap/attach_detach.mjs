// Attach to a listening JVM (java-debug's hostName/port), a function breakpoint, pause, then disconnect
// without terminating: pytest checks the JVM still runs.
import { assert, scenario, cfg, topFrame } from './lib.mjs';

await scenario('attach_detach', async (s) => {
  await s.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await s.dc.attachRequest({ hostName: '127.0.0.1', port: cfg.port, timeout: 10000, sourcePaths: [cfg.sourceRoot] });
  await s.next('initialized');
  const fb = await s.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'fixtures.DapShowcase.tick' }] });
  assert.equal(fb.body.breakpoints.length, 1);
  await s.dc.configurationDoneRequest();
  const stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'function breakpoint');
  assert.equal((await topFrame(s, stop.body.threadId)).name, 'DapShowcase.tick');

  await s.dc.setFunctionBreakpointsRequest({ breakpoints: [] });
  await s.dc.continueRequest({ threadId: stop.body.threadId });
  await s.next('continued');
  await s.dc.pauseRequest({ threadId: stop.body.threadId });
  const paused = await s.next('stopped', (e) => e.body.reason === 'pause');
  assert.equal(paused.body.threadId, stop.body.threadId);
  await s.dc.disconnectRequest({ terminateDebuggee: false });
});
