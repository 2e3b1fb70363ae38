// One launch through the features a person uses in an editor: a conditional breakpoint, a logpoint, a
// caught-exception filter with a condition, a deferred breakpoint that verifies when its class loads,
// variables paging and logical collections, evaluate, setVariable, setExpression, stepIn/next/stepOut,
// restartFrame, and the program's own output and exit code.
import { assert, scenario, launchTo, line, source, topFrame, locals } from './lib.mjs';

await scenario('launch_features', async (s) => {
  const bps = await launchTo(s, 'DapShowcase', {
    DapShowcase: [
      { line: line('dap-hits'), hitCondition: '4' },
      { line: line('dap-loop'), condition: 'i == 3' },
      { line: line('dap-print'), logMessage: 'total={total} late={late}' },
    ],
    DapShowcaseLate: [{ line: line('dap-late') }],
  }, { exceptionFilters: { filters: [], filterOptions: [{ filterId: 'caught', condition: 'java.lang.IllegalStateException' }] } });
  const deferred = bps.DapShowcaseLate[0];
  assert.equal(deferred.verified, false, 'DapShowcaseLate is not loaded yet');

  // The hit condition: only the 4th pass stops.
  let stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'breakpoint');
  const thread = stop.body.threadId;
  let frame = await topFrame(s, thread);
  assert.equal(frame.line, line('dap-hits'));
  assert.equal((await locals(s, frame.id)).j.value, '3');
  await s.dc.continueRequest({ threadId: thread });

  // The condition: only i == 3 stops.
  stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'breakpoint');
  frame = await topFrame(s, thread);
  assert.equal(frame.line, line('dap-loop'));
  let vars = await locals(s, frame.id);
  assert.equal(vars.i.value, '3');

  // Paging: the array declares its length; a page of it is fetched on demand.
  assert.equal(vars.numbers.indexedVariables, 300);
  const page = await s.dc.variablesRequest({ variablesReference: vars.numbers.variablesReference, filter: 'indexed', start: 100, count: 5 });
  assert.deepEqual(page.body.variables.map((v) => v.value), ['300', '303', '306', '309', '312']);
  assert.equal(page.body.variables[0].name, '[100]');
  // A collection shows its elements (the logical view), not ArrayList's internals.
  const names = await s.dc.variablesRequest({ variablesReference: vars.names.variablesReference });
  assert.deepEqual(names.body.variables.map((v) => v.value), ['"ann"', '"bob"', '"cyd"']);

  // evaluate (repl and hover), setVariable on an array element, setExpression on a static field.
  let ev = await s.dc.evaluateRequest({ expression: 'numbers[2] * 10 + i', frameId: frame.id, context: 'repl' });
  assert.equal(ev.body.result, '63');
  ev = await s.dc.evaluateRequest({ expression: 'total', frameId: frame.id, context: 'hover' });
  assert.equal(ev.body.result, '5');
  const set = await s.dc.setVariableRequest({ variablesReference: vars.numbers.variablesReference, name: '[100]', value: '7' });
  assert.equal(set.body.value, '7');
  const setExpr = await s.dc.customRequest('setExpression', { expression: 'total', value: '100', frameId: frame.id });
  assert.equal(setExpr.body.value, '100');
  const bad = await s.dc.evaluateRequest({ expression: 'nosuchvar + 1', frameId: frame.id, context: 'watch' }).catch((e) => e);
  assert.ok(bad instanceof Error && /nosuchvar/.test(bad.message), `a clear error: ${bad}`);

  // Stepping into square, over its first line, and out again.
  await s.dc.stepInRequest({ threadId: thread });
  stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'step');
  frame = await topFrame(s, thread);
  assert.deepEqual([frame.name, frame.line], ['DapShowcase.square', line('dap-square')]);
  await s.dc.nextRequest({ threadId: thread });
  await s.next('stopped', (e) => e.body.reason === 'step');
  frame = await topFrame(s, thread);
  assert.equal(frame.line, line('dap-square-return'));
  assert.equal((await locals(s, frame.id)).sq.value, '9');
  await s.dc.stepOutRequest({ threadId: thread });
  await s.next('stopped', (e) => e.body.reason === 'step');
  frame = await topFrame(s, thread);
  assert.deepEqual([frame.name, frame.line], ['DapShowcase.main', line('dap-loop')]);

  // The exception filter: a caught IllegalStateException stops where it is thrown.
  await s.dc.continueRequest({ threadId: thread });
  stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'exception');
  assert.match(stop.body.description, /IllegalStateException/);
  assert.equal((await topFrame(s, thread)).line, line('dap-throw'));

  // The deferred breakpoint is reported verified when DapShowcaseLate loads, then it stops there.
  await s.dc.continueRequest({ threadId: thread });
  const verified = await s.next('breakpoint', (e) => e.body.breakpoint.id === deferred.id);
  assert.equal(verified.body.breakpoint.verified, true);
  assert.equal(verified.body.breakpoint.line, line('dap-late'));
  stop = await s.next('stopped');
  assert.deepEqual(stop.body.hitBreakpointIds, [deferred.id]);
  frame = await topFrame(s, thread);
  assert.equal((await locals(s, frame.id)).x.value, '126');

  // restartFrame pops compute(); the thread is back at the call, which runs again on continue.
  await s.dc.restartFrameRequest({ frameId: frame.id });
  stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'restart');
  frame = await topFrame(s, thread);
  assert.deepEqual([frame.name, frame.line], ['DapShowcase.main', line('dap-late-call')]);
  await s.dc.continueRequest({ threadId: thread });
  stop = await s.next('stopped');
  assert.deepEqual(stop.body.hitBreakpointIds, [deferred.id]);

  // The logpoint writes to the console without stopping; the program ends with its exit code.
  await s.dc.continueRequest({ threadId: thread });
  const exited = await s.next('exited');
  assert.equal(exited.body.exitCode, 0);
  await s.next('terminated');
  const out = s.output();
  assert.match(out, /total=126 late=254/);
  assert.match(out, /total 126 late 254 n100 7 \[ann, bob, cyd\]/);
  assert.ok(!s.log.some((e) => e.event === 'stopped' && e.body.reason === 'breakpoint'
    && e.body.hitBreakpointIds && e.body.hitBreakpointIds.includes(bps.DapShowcase[2].id)), 'a logpoint never stops');
});
