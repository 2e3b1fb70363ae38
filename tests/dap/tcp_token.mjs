// `tracepilot dap --port N` serves only whoever presents its token (cfg.port, cfg.token from pytest):
// without it, initialize is answered and everything else refused; with it in the launch arguments (as a
// launch.json would carry it), a normal session runs.
import { createRequire } from 'node:module';
import { assert, cfg, Session, launchArgs, source, line } from './lib.mjs';

const require = createRequire(import.meta.url);
const { DebugClient } = require('@vscode/debugadapter-testsupport');

async function connect() {
  const dc = new DebugClient('unused', 'unused', 'java');
  dc.defaultTimeout = cfg.timeoutMs;
  await dc.start(cfg.port);
  return new Session(dc);
}

async function refused(promise, pattern) {
  try {
    await promise;
  } catch (err) {
    assert.match(String(err.message), pattern);
    return;
  }
  assert.fail(`not refused (expected ${pattern})`);
}

let ok = false;
try {
  const stranger = await connect();
  await stranger.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, pathFormat: 'path' });
  await refused(stranger.dc.threadsRequest(), /before the token is presented/);
  await refused(stranger.dc.launchRequest(launchArgs('Quick')), /no "token" in its arguments/);
  stranger.dc.stopAdapter();

  const wrong = await connect();
  await wrong.dc.initializeRequest({ adapterID: 'java' });
  await refused(wrong.dc.launchRequest(launchArgs('Quick', { token: 'not-the-token' })), /wrong token/);
  wrong.dc.stopAdapter();

  const owner = await connect();
  await owner.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, pathFormat: 'path' });
  await owner.dc.launchRequest(launchArgs('Quick', { token: cfg.token, type: 'java', request: 'launch', name: 'Quick' }));
  await owner.next('initialized');
  await owner.dc.setBreakpointsRequest({ source: { path: source('Quick') }, breakpoints: [{ line: line('quick-add') }] });
  await owner.dc.configurationDoneRequest();
  const stop = await owner.next('stopped');
  assert.equal(stop.body.reason, 'breakpoint');
  await owner.dc.continueRequest({ threadId: stop.body.threadId });
  assert.equal((await owner.next('exited')).body.exitCode, 0);
  await owner.dc.disconnectRequest({});
  owner.dc.stopAdapter();
  ok = true;
} catch (err) {
  console.error('scenario tcp_token failed:', err && err.stack ? err.stack : err);
}
process.exit(ok ? 0 : 1);
