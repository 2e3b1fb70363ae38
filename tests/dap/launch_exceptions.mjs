// Issue 29 points 14, 15 and 17 over DAP: exceptionInfo (type, message, stack, causes as innerException),
// a logpoint line shown as the program's output (stdout, with its source line), exception stops naming only
// breakpoint ids the client got, `continued` with the real thread, no thread events for threads `threads`
// never lists, setVariable without a variablesReference refused in words, a failed attach in DAP words.
import { assert, scenario, cfg, launchArgs, line, source, start } from './lib.mjs';

const HELPFUL = 'Cannot invoke "fixtures.Causes$Address.city()" because "customer.address" is null';

async function rejected(promise) {
  try {
    await promise;
  } catch (err) {
    return String(err && err.message ? err.message : err);
  }
  assert.fail('the request should have failed');
}

await scenario('launch_exceptions', async (s) => {
  const init = await s.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, columnsStartAt1: true,
    pathFormat: 'path' });
  assert.equal(init.body.supportsExceptionInfoRequest, true);
  await s.dc.launchRequest(launchArgs('Causes'));
  await s.next('initialized');
  await s.dc.setBreakpointsRequest({ source: { path: source('Causes') },
    breakpoints: [{ line: line('causes-ready'), logMessage: 'ready with {args.length} args' }] });
  const exc = await s.dc.setExceptionBreakpointsRequest({ filters: ['uncaught'],
    filterOptions: [{ filterId: 'caught', condition: 'java.lang.NullPointerException' }] });
  const excIds = exc.body.breakpoints.map((b) => b.id);
  assert.equal(excIds.length, 2);
  assert.ok(excIds.every((id) => Number.isInteger(id)), JSON.stringify(exc.body));
  await s.dc.configurationDoneRequest();

  // The logpoint's line: visible as output (dap-mode hides "console"), linked to its source line.
  const logged = await s.next('output', (e) => e.body.output.includes('ready with 0 args'));
  assert.equal(logged.body.category, 'stdout');
  assert.equal(logged.body.line, line('causes-ready'));
  assert.ok(logged.body.source.path.endsWith('Causes.java'), JSON.stringify(logged.body));

  // The caught NullPointerException: exceptionInfo says what the JVM's helpful message says.
  const stop = await s.next('stopped');
  assert.equal(stop.body.reason, 'exception');
  assert.ok(stop.body.hitBreakpointIds.length > 0 && stop.body.hitBreakpointIds.every((id) => excIds.includes(id)),
    JSON.stringify(stop.body));
  const info = (await s.dc.customRequest('exceptionInfo', { threadId: stop.body.threadId })).body;
  assert.equal(info.exceptionId, 'java.lang.NullPointerException');
  assert.equal(info.description, HELPFUL);
  assert.equal(info.breakMode, 'always');
  assert.equal(info.details.message, HELPFUL);
  assert.equal(info.details.typeName, 'NullPointerException');
  assert.ok(info.details.stackTrace.includes(`fixtures.Causes.cityOf(Causes.java:${line('causes-npe')})`),
    info.details.stackTrace);

  const why = await rejected(s.dc.setVariableRequest({ variablesReference: 0, name: 'x', value: '1' }));
  assert.match(why, /variablesReference/);
  assert.doesNotMatch(why, /ran since/);

  const threadsBefore = (await s.dc.threadsRequest()).body.threads.map((t) => t.id);
  await s.dc.continueRequest({ threadId: stop.body.threadId });
  const continued = await s.next('continued');
  assert.equal(continued.body.threadId, stop.body.threadId);
  assert.equal(continued.body.allThreadsContinued, true);

  // The uncaught RuntimeException: its causes, each with its top frame, as nested innerException.
  const last = await s.next('stopped');
  assert.ok(last.body.hitBreakpointIds.every((id) => excIds.includes(id)), JSON.stringify(last.body));
  const end = (await s.dc.customRequest('exceptionInfo', { threadId: last.body.threadId })).body;
  assert.equal(end.exceptionId, 'java.lang.RuntimeException');
  assert.equal(end.breakMode, 'unhandled');
  const cause = end.details.innerException[0];
  assert.equal(cause.fullTypeName, 'java.lang.IllegalStateException');
  assert.equal(cause.message, 'lookup failed for a customer');
  assert.ok(cause.stackTrace.includes(`fixtures.Causes.lookup(Causes.java:${line('causes-wrap')})`), cause.stackTrace);
  const root = cause.innerException[0];
  assert.equal(root.typeName, 'NullPointerException');
  assert.equal(root.message, HELPFUL);

  // Every thread announced as started is one `threads` lists, the program's end included (the JVM's own
  // threads, such as DestroyJavaVM at the end, get no thread events).
  const listed = new Set([...threadsBefore, ...(await s.dc.threadsRequest()).body.threads.map((t) => t.id)]);
  await s.dc.continueRequest({ threadId: last.body.threadId });
  await s.next('terminated');
  const threadEvents = s.log.filter((e) => e.event === 'thread');
  const exited = new Set(threadEvents.filter((e) => e.body.reason === 'exited').map((e) => e.body.threadId));
  const hidden = threadEvents.filter((e) => e.body.reason === 'started' && !listed.has(e.body.threadId)
    && !exited.has(e.body.threadId));
  assert.deepEqual(hidden, [], `thread events for threads never listed: ${JSON.stringify(threadEvents)}`);
  await s.dc.disconnectRequest({});

  // A failed attach says what to fix in the attach configuration, not which MCP tool to call.
  const other = await start();
  try {
    await other.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, pathFormat: 'path' });
    const failed = await rejected(other.dc.attachRequest({ hostName: '127.0.0.1', port: cfg.freePort, timeout: 300 }));
    assert.doesNotMatch(failed, /diagnose/);
    assert.match(failed, /"port"/);
    await other.dc.disconnectRequest({});
  } finally {
    other.dc.stopAdapter();
  }
});
