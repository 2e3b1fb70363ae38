// disconnect {terminateDebuggee: false} on a JVM the adapter launched detaches and leaves it running (pytest
// checks the pid the `process` event named is still alive after the adapter has ended, then ends it).
import { assert, scenario, launchTo, line, tell } from './lib.mjs';

await scenario('launch_detach', async (s) => {
  await launchTo(s, 'Playground', { Playground: [{ line: line('loop-body') }] }, { args: ['100000'] });
  assert.equal((await s.next('stopped')).body.reason, 'breakpoint');
  const process = s.log.find((e) => e.event === 'process'); // sent before `initialized`
  assert.ok(process && process.body.systemProcessId > 0, JSON.stringify(process));
  await s.dc.disconnectRequest({ terminateDebuggee: false });
  tell(`pid ${process.body.systemProcessId}`);
});
