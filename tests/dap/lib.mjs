// Shared helpers of the DAP scenarios: a DebugClient on `tracepilot dap` and an event queue.
//
// pytest (tests/dap/test_*.py) runs each scenario with DAP_TEST_CONFIG (JSON): the adapter command, the
// compiled fixture classes, the fixture sources, the java executable and the marker lines of the fixtures.
import { createRequire } from 'node:module';
import path from 'node:path';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);
const { DebugClient } = require('@vscode/debugadapter-testsupport');

export const cfg = JSON.parse(process.env.DAP_TEST_CONFIG);
export { assert };

const EVENTS = ['initialized', 'stopped', 'continued', 'output', 'breakpoint', 'thread', 'terminated', 'exited', 'process'];

// Every event the adapter sends is kept in order, so a test never misses one that came before it asked.
export class Session {
  constructor(dc) {
    this.dc = dc;
    this.log = [];
    this.waiters = [];
    for (const name of EVENTS) {
      dc.on(name, (event) => {
        this.log.push(event);
        this.waiters = this.waiters.filter((w) => !w.offer(event));
      });
    }
    this.consumed = 0;
    // After a disconnect the adapter exits: DebugClient.stop() would send a second one and wait forever.
    const disconnect = dc.disconnectRequest.bind(dc);
    dc.disconnectRequest = (args) => { this.disconnected = true; return disconnect(args); };
  }

  // The next event of `name` (after the ones already taken) that satisfies `pred`.
  next(name, pred = () => true, timeout = cfg.timeoutMs) {
    for (let i = this.consumed; i < this.log.length; i++) {
      const e = this.log[i];
      if (e.event === name && pred(e)) {
        this.consumed = i + 1;
        return Promise.resolve(e);
      }
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const seen = this.log.map((e) => e.event + (e.body && e.body.reason ? `(${e.body.reason})` : '')).join(', ');
        reject(new Error(`no '${name}' event within ${timeout} ms; events so far: ${seen}`));
      }, timeout);
      this.waiters.push({
        offer: (e) => {
          if (e.event !== name || !pred(e)) return false;
          clearTimeout(timer);
          this.consumed = this.log.indexOf(e) + 1;
          resolve(e);
          return true;
        },
      });
    });
  }

  output() {
    return this.log.filter((e) => e.event === 'output').map((e) => e.body.output).join('');
  }
}

export function source(cls) {
  return path.join(cfg.sourceRoot, 'fixtures', `${cls}.java`);
}

export function line(marker) {
  const found = cfg.lines[marker];
  assert.ok(found, `no line for marker ${marker}`);
  return found;
}

export function launchArgs(main, extra = {}) {
  return {
    mainClass: `fixtures.${main}`, classPaths: [cfg.classes], sourcePaths: [cfg.sourceRoot],
    javaExec: cfg.java, ...extra,
  };
}

export async function start(extraArgs = []) {
  const dc = new DebugClient(cfg.adapter[0], cfg.adapter[1], 'java', { env: process.env }, true);
  dc.defaultTimeout = cfg.timeoutMs;
  await dc.start();
  const s = new Session(dc);
  return s;
}

// Launch `main` with breakpoints set during the configuration phase; returns the first stop.
export async function launchTo(s, main, breakpoints, extra = {}) {
  const init = await s.dc.initializeRequest({ adapterID: 'java', linesStartAt1: true, columnsStartAt1: true,
    pathFormat: 'path', supportsVariablePaging: true });
  s.capabilities = init.body;
  await s.dc.launchRequest(launchArgs(main, extra));
  await s.next('initialized');
  const responses = {};
  for (const [cls, bps] of Object.entries(breakpoints)) {
    responses[cls] = (await s.dc.setBreakpointsRequest({ source: { path: source(cls) }, breakpoints: bps })).body.breakpoints;
  }
  if (extra.exceptionFilters) {
    await s.dc.setExceptionBreakpointsRequest(extra.exceptionFilters);
  }
  await s.dc.configurationDoneRequest();
  return responses;
}

export async function topFrame(s, threadId) {
  const st = await s.dc.stackTraceRequest({ threadId, startFrame: 0, levels: 20 });
  return st.body.stackFrames[0];
}

export async function locals(s, frameId) {
  const scopes = await s.dc.scopesRequest({ frameId });
  const vars = await s.dc.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
  return Object.fromEntries(vars.body.variables.map((v) => [v.name, v]));
}

// Run the scenario's steps; a failure prints the step and exits non-zero (pytest shows stderr).
export async function scenario(name, body) {
  const s = await start();
  let ok = false;
  try {
    await body(s);
    ok = true;
  } catch (err) {
    console.error(`scenario ${name} failed:`, err && err.stack ? err.stack : err);
    console.error('events:', JSON.stringify(s.log.map((e) => [e.event, e.body]), null, 0).slice(0, 4000));
  } finally {
    if (s.disconnected) s.dc.stopAdapter();
    else {
      try { await s.dc.stop(); } catch { /* the adapter may already have ended */ }
    }
  }
  process.exit(ok ? 0 : 1);
}

// Coordination with the pytest side of a scenario: a line on stdout says where we are; `until` waits for
// a line on stdin (read only from then on: most scenarios run with stdin closed).
export function tell(text) {
  process.stdout.write(`${text}\n`);
}

let stdinBuffer = '';
export function until(text) {
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      stdinBuffer += chunk;
      for (let i; (i = stdinBuffer.indexOf('\n')) >= 0;) {
        const got = stdinBuffer.slice(0, i).trim();
        stdinBuffer = stdinBuffer.slice(i + 1);
        if (got === text) {
          process.stdin.off('data', onData);
          process.stdin.pause();
          resolve();
          return;
        }
      }
    };
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', onData);
    process.stdin.once('end', () => reject(new Error(`stdin ended before '${text}'`)));
  });
}
