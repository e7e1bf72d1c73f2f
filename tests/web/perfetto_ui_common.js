// What the tests that drive Perfetto's own UI share (open_in_perfetto_ui.js,
// open_view_in_perfetto_ui.js): where chromium and the built UI are, why a
// test skips, checks that count their failures, and small waits on ports.
const {execFileSync} = require('child_process');
const fs = require('fs');
const net = require('net');
const path = require('path');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CACHE = process.env.XDG_CACHE_HOME || path.join(process.env.HOME || '/tmp', '.cache');
const DIST = process.env.PERFETTO_UI_DIST ||
  path.join(CACHE, 'nsys-perfetto-tools/perfetto-ui/src/out/ui/ui/dist');
const SKIP = 77;

const checks = {failures: 0};
function expect(ok, what) {
  if (!ok) { checks.failures++; console.log('FAIL: ' + what); }
  return ok;
}

function loadPlaywright() {
  try { return require('playwright-core'); } catch (e) { /* not local: try the global one */ }
  try {
    const root = execFileSync('npm', ['root', '-g'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']}).trim();
    return require(path.join(root, 'playwright-core'));
  } catch (e) { return null; }
}

function portOpen(port) {
  return new Promise(resolve => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

function freePort() {
  return new Promise(resolve => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = ms => new Promise(r => setTimeout(r, ms));

// Playwright when everything the test needs is here (chromium, the UI's
// build, the engine, a free 127.0.0.1:9001), else null after saying why.
async function uiOrSkip(engine) {
  if (!fs.existsSync(CHROMIUM)) { console.log('skip: ' + CHROMIUM + ' absent'); return null; }
  const playwright = loadPlaywright();
  if (!playwright) { console.log('skip: playwright-core not installed'); return null; }
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    console.log('skip: no Perfetto UI build at ' + DIST + ' (../shared/tools/build-perfetto-ui)');
    return null;
  }
  if (!fs.existsSync(engine)) { console.log('skip: ' + engine + ' absent'); return null; }
  if (await portOpen(9001)) { console.log('skip: 127.0.0.1:9001 is in use'); return null; }
  return playwright;
}

module.exports = {CHROMIUM, DIST, SKIP, checks, expect, loadPlaywright, portOpen, freePort, sleep, uiOrSkip};
