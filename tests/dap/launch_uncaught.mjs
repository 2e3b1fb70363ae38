// The "uncaught" exception filter stops where an exception escapes main; the JVM then exits with code 1.
import { assert, scenario, launchTo, line, topFrame } from './lib.mjs';

await scenario('launch_uncaught', async (s) => {
  await launchTo(s, 'DapShowcase', {}, { args: ['uncaught'], exceptionFilters: { filters: ['uncaught'] } });
  const stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'exception');
  assert.match(stop.body.description, /UnsupportedOperationException: dap-uncaught/);
  assert.equal((await topFrame(s, stop.body.threadId)).line, line('dap-uncaught'));
  await s.dc.continueRequest({ threadId: stop.body.threadId });
  const exited = await s.next('exited');
  assert.equal(exited.body.exitCode, 1);
  await s.next('terminated');
});
