// A step right after a pause (in Thread.sleep, native) steps out to the program's frame and stops there
// at the next line, instead of running on (issue 29, point 13): `next` answers with a `stopped` event.
import { assert, scenario, launchTo, line, topFrame } from './lib.mjs';

await scenario('step_after_pause', async (s) => {
  await launchTo(s, 'Napper', {});
  await s.next('output', (e) => /nap 2/.test(e.body.output));
  await s.dc.pauseRequest({ threadId: 1 });
  const paused = await s.next('stopped', (e) => e.body.reason === 'pause');
  const thread = paused.body.threadId;
  for (const [request, name] of [['nextRequest', 'next'], ['stepInRequest', 'stepIn']]) {
    await s.dc[request]({ threadId: thread });
    const stop = await s.next('stopped', (e) => e.body.reason === 'step', 8000);
    const top = await topFrame(s, stop.body.threadId);
    assert.equal(top.name, 'Napper.main', `${name}: ${JSON.stringify(top)}`);
    assert.ok([line('nap-loop'), line('nap-print'), line('nap-sleep')].includes(top.line), `${name}: ${JSON.stringify(top)}`);
    await s.dc.continueRequest({ threadId: thread });
    await s.next('output', (e) => /nap \d+/.test(e.body.output));
    await s.dc.pauseRequest({ threadId: thread });
    await s.next('stopped', (e) => e.body.reason === 'pause');
  }
  await s.dc.disconnectRequest({ terminateDebuggee: true });
});
