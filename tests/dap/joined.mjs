// `tracepilot dap --join SESSION` on an agent's live MCP session: the agent's resume reaches the editor as
// continued + stopped; the editor's `next` runs on the shared session (pytest checks the agent's events
// name the person); disconnect leaves the session running.
import { assert, scenario, line, topFrame, tell, until } from './lib.mjs';

await scenario('joined', async (s) => {
  await s.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await s.dc.attachRequest({});
  await s.next('initialized');
  await s.dc.configurationDoneRequest();
  tell('joined');

  await s.next('continued');
  const stop = await s.next('stopped', (e) => e.body.reason === 'breakpoint');
  assert.equal((await topFrame(s, stop.body.threadId)).line, line('loop-body'));

  await s.dc.nextRequest({ threadId: stop.body.threadId });
  const stepped = await s.next('stopped', (e) => e.body.reason === 'step');
  assert.equal((await topFrame(s, stepped.body.threadId)).line, line('loop-static'));
  tell('stepped');
  await until('leave');
  await s.dc.disconnectRequest({});
});
