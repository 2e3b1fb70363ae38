// A launch with a line breakpoint: stopped event, threads, stackTrace, scopes, variables, continue, the
// program's output and its real exit code.
import { assert, scenario, launchTo, line, source, topFrame, locals } from './lib.mjs';

await scenario('launch_basics', async (s) => {
  const bps = await launchTo(s, 'Quick', { Quick: [{ line: line('quick-add') }] });
  assert.equal(bps.Quick[0].line, line('quick-add'));
  const stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'breakpoint');
  assert.deepEqual(stop.body.hitBreakpointIds, [bps.Quick[0].id]);

  const threads = (await s.dc.threadsRequest()).body.threads;
  assert.ok(threads.some((t) => t.id === stop.body.threadId && t.name === 'main'), JSON.stringify(threads));

  const st = await s.dc.stackTraceRequest({ threadId: stop.body.threadId, startFrame: 0, levels: 1 });
  const frame = st.body.stackFrames[0];
  assert.equal(frame.name, 'Quick.add');
  assert.equal(frame.line, line('quick-add'));
  assert.equal(frame.source.path, source('Quick'));
  const rest = await s.dc.stackTraceRequest({ threadId: stop.body.threadId, startFrame: 1, levels: 5 });
  assert.equal(rest.body.stackFrames[0].name, 'Quick.main');
  assert.equal(rest.body.totalFrames, 2);

  const vars = await locals(s, frame.id);
  assert.equal(vars.a.value, '2');
  assert.equal(vars.b.value, '3');
  assert.equal(vars.a.type, 'int');

  await s.dc.continueRequest({ threadId: stop.body.threadId });
  const exited = await s.next('exited');
  assert.equal(exited.body.exitCode, 0);
  await s.next('terminated');
  assert.match(s.output(), /hello quick 5/);
});
