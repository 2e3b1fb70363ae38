// A data breakpoint on one object's field (the other object of the same class does not stop), and the
// text of a class whose source is not on the source path, fetched by sourceReference.
import { assert, scenario, launchArgs, line, topFrame, locals } from './lib.mjs';

await scenario('launch_data_source', async (s) => {
  const init = await s.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, columnsStartAt1: true,
    pathFormat: 'path' });
  assert.equal(init.body.supportsDataBreakpoints, true);
  // No sourcePaths: the fixture's source is not found, so frames carry a sourceReference.
  await s.dc.launchRequest(launchArgs('DapShowcase', { args: ['data'], sourcePaths: [] }));
  await s.next('initialized');
  const fn = await s.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'fixtures.DapShowcase$Counter.add' }] });
  assert.equal(fn.body.breakpoints.length, 1);
  await s.dc.configurationDoneRequest();

  // The first add() is other.add(100): watch this object's `count`, then drop the function breakpoint.
  let stop = await s.next('stopped', (e) => e.body.reason === 'function breakpoint');
  const thread = stop.body.threadId;
  let frame = await topFrame(s, thread);
  assert.equal(frame.name, 'DapShowcase$Counter.add');
  const self = (await locals(s, frame.id)).this;
  assert.ok(self.variablesReference > 0, 'this is expandable');
  const notAField = await s.dc.customRequest('dataBreakpointInfo', { variablesReference: 0, name: 'n' });
  assert.equal(notAField.body.dataId, null, 'a local cannot be watched');
  const info = await s.dc.dataBreakpointInfoRequest({ variablesReference: self.variablesReference, name: 'count' });
  assert.ok(info.body.dataId, `a field can be watched: ${JSON.stringify(info.body)}`);
  assert.ok(info.body.accessTypes.includes('write'));
  const set = await s.dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
  assert.equal(set.body.breakpoints[0].verified, true, JSON.stringify(set.body));
  await s.dc.setFunctionBreakpointsRequest({ breakpoints: [] });

  // The class's text by reference: a line-aligned outline, add() on the line its code starts.
  assert.ok(frame.source && frame.source.sourceReference > 0, `frame source: ${JSON.stringify(frame.source)}`);
  const text = await s.dc.sourceRequest({ sourceReference: frame.source.sourceReference, source: frame.source });
  const rows = text.body.content.split('\n');
  assert.match(rows[line('dap-data-write') - 1], /add\(int\)/, text.body.content.slice(0, 400));
  assert.match(text.body.content, /sourcePaths/);

  // Writes of this object's field stop (0 -> 100, then 100 -> 200); counter.add(i) in between does not.
  await s.dc.continueRequest({ threadId: thread });
  stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'data breakpoint');
  frame = await topFrame(s, thread);
  assert.deepEqual([frame.name, frame.line], ['DapShowcase$Counter.add', line('dap-data-write')]);
  assert.equal((await locals(s, frame.id)).n.value, '100');
  await s.dc.continueRequest({ threadId: thread });
  stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'data breakpoint');
  assert.equal((await locals(s, (await topFrame(s, thread)).id)).n.value, '100', 'the other counter never stops');

  // Cleared, the program runs to its end.
  await s.dc.setDataBreakpointsRequest({ breakpoints: [] });
  await s.dc.continueRequest({ threadId: thread });
  const exited = await s.next('exited');
  assert.equal(exited.body.exitCode, 0);
  assert.match(s.output(), /count 6 other 300/);
});
