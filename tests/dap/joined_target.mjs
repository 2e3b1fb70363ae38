// `tracepilot dap --join SESSION --target client` on a session with two JVMs (PriceServer, PriceClient): the
// editor sees the client's stop with its stack and variables, and never the server's (its VM start, launched
// first, or its breakpoint stop, which pytest awaits and resumes before the client stops).
import { assert, scenario, line, locals, tell, until } from './lib.mjs';

await scenario('joined_target', async (s) => {
  await s.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await s.dc.attachRequest({});
  await s.next('initialized');
  await s.dc.configurationDoneRequest();
  tell('joined');

  const stop = await s.next('stopped', (e) => e.body.reason === 'breakpoint');
  const stack = (await s.dc.stackTraceRequest({ threadId: stop.body.threadId, startFrame: 0, levels: 20 })).body.stackFrames;
  assert.match(stack[0].name, /PriceClient\.main/);
  assert.equal(stack[0].line, line('client-total'));
  const vars = await locals(s, stack[0].id);
  assert.equal(vars.total.value, '135');
  assert.equal(vars.sum.value, '60');
  assert.equal(vars.order.value, '"pear 3"');
  const evaluated = await s.dc.evaluateRequest({ expression: 'sum + total', frameId: stack[0].id, context: 'watch' });
  assert.equal(evaluated.body.result, '195');
  // Every stop told was the client's: its VM start (told on joining, and again as the current stop: both
  // the client's) and this breakpoint; the server's VM start and its breakpoint stop never came.
  const stops = s.log.filter((e) => e.event === 'stopped').map((e) => e.body.reason);
  assert.deepEqual(stops.filter((r) => r !== 'entry'), ['breakpoint'], JSON.stringify(stops));
  assert.ok(stops.filter((r) => r === 'entry').length <= 2, `the server's VM start reached the client's editor: ${stops}`);
  tell('checked');
  await until('leave');
  await s.dc.disconnectRequest({});
});
