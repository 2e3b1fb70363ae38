// stopOnEntry stops before any code runs; the terminate request ends the program (exited, terminated).
import { assert, scenario, launchArgs } from './lib.mjs';

await scenario('launch_entry_terminate', async (s) => {
  await s.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await s.dc.launchRequest(launchArgs('DapShowcase', { args: 'spin', stopOnEntry: true }));
  await s.next('initialized');
  await s.dc.configurationDoneRequest();
  const stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'entry');
  await s.dc.continueRequest({ threadId: stop.body.threadId });
  await s.next('continued');
  await s.dc.terminateRequest({});
  await s.next('terminated');
  await s.dc.disconnectRequest({});
});
