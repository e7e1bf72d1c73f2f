// A trace past what the browser holds opens anyway: `--open` runs Perfetto's
// native trace processor on it (--httpd, 127.0.0.1:9001) and the link it
// prints opens Perfetto's own UI (a local build, as ui.perfetto.dev) in RPC
// mode. Generates the benchmark's mix (10M events by default), converts and
// opens it with --open, answers the UI's "use loaded trace" prompt in
// Debian's chromium, and checks that the UI shows the trace: every GPU's
// group and the processes, and the slices the engine holds (all of them,
// counted against the converter's own numbers). Ctrl-C then stops the
// engine. Skipped (77) without node's playwright-core, chromium, the UI
// build (../shared/tools/build-perfetto-ui) or trace_processor_shell.
//   node open_in_perfetto_ui.js NSYS_PERFETTO NSYS_FIXTURE TRACE_PROCESSOR WORKDIR [EVENTS [OPEN_LIMIT]]
// (a smaller EVENTS needs a smaller OPEN_LIMIT to take the native path)
'use strict';
const {spawn, execFileSync} = require('child_process');
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const [bin, fixture, engine, work, eventsArg, openLimit] = process.argv.slice(2);
const EVENTS = Number(eventsArg || 10000000);
const {CHROMIUM, DIST, SKIP, checks, expect, portOpen, freePort, sleep, uiOrSkip} =
  require('./perfetto_ui_common');

async function main() {
  const playwright = await uiOrSkip(engine);
  if (!playwright) return SKIP;

  fs.rmSync(work, {recursive: true, force: true});
  fs.mkdirSync(work, {recursive: true});
  const report = path.join(work, 'mix.sqlite');
  const trace = path.join(work, 'mix.perfetto-trace');
  execFileSync(fixture, ['--events', String(EVENTS), '--nvtx', '--osrt', '--sched', '8', '--samples',
                         '1000', '--gpu-metrics', '1000', report], {stdio: 'inherit'});

  // The UI, served as ui.perfetto.dev serves it (static files).
  const uiPort = await freePort();
  const ui = spawn('python3', ['-m', 'http.server', String(uiPort), '--bind', '127.0.0.1',
                               '--directory', DIST], {stdio: 'ignore'});
  const uiUrl = 'http://127.0.0.1:' + uiPort + '/';
  let open = null;
  const browser = await playwright.chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
  try {
    // --open with the default --open-limit: the estimate decides.
    const began = Date.now();
    open = spawn(bin, ['--open', '--trace-processor', engine, '--perfetto-ui', uiUrl, '--stats',
                       ...(openLimit ? ['--open-limit', openLimit] : []), '-o', trace, report],
                 {stdio: ['ignore', 'pipe', 'pipe']});
    let stderr = '';
    open.stderr.on('data', d => { stderr += d; });
    const link = await new Promise(resolve => {
      readline.createInterface({input: open.stdout}).once('line', resolve);
      open.once('exit', () => resolve(null));
    });
    console.log('--open printed ' + link + ' after ' + ((Date.now() - began) / 1000).toFixed(1) + ' s');
    if (!expect(link !== null && link.split('?startupCommands=')[0] === uiUrl + '#!/', 'the UI link: ' + link + '\n' + stderr.slice(-2000))) return 1;
    // The slices written: the events of every source but those written as
    // scheduling, samples and counters (--stats: source table rows events skipped).
    const NOT_SLICES = new Set(['sched', 'sampling', 'gpu-metrics', 'gpu-memory']);
    const events = [...stderr.matchAll(/^(\S+)\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)$/gm)]
      .filter(m => !NOT_SLICES.has(m[1])).reduce((n, m) => n + Number(m[3]), 0);
    while (!await portOpen(uiPort)) await sleep(200);

    const page = await (await browser.newContext({viewport: {width: 1600, height: 1000}})).newPage();
    page.on('pageerror', e => expect(false, 'page error: ' + e.message.slice(0, 300)));
    await page.goto(link, {waitUntil: 'load'});
    const yes = page.getByRole('button', {name: 'YES, use loaded trace'});
    await yes.waitFor({timeout: 120000});
    await yes.click();
    const ok = page.locator('.pf-cookie-consent button', {hasText: 'OK'});
    if (await ok.count()) await ok.first().click();
    await page.waitForFunction(() => window.app && window.app.trace && window.app.trace.currentWorkspace &&
                               window.app.trace.currentWorkspace.flatTracks.length > 0, null,
                               {timeout: 300000});
    // The timeline draws its groups once the engine has answered the UI's
    // queries: a while on 10M events.
    await page.waitForFunction(() => [...document.querySelectorAll('.pf-track__title')]
                                 .some(t => t.textContent.startsWith('GPU')), null,
                               {timeout: 300000}).catch(() => {});
    const titles = await page.$$eval('.pf-track__title', ts => ts.map(t => t.textContent));
    console.log('top of the timeline: ' + titles.slice(0, 12).join(' | '));
    for (const gpu of ['GPU 0', 'GPU 1'])
      expect(titles.some(t => t.startsWith(gpu)), 'the UI shows ' + gpu + "'s group: " + titles.join(' | '));
    // What the engine behind the UI holds: every slice the converter wrote.
    const slices = await page.evaluate(async () => {
      const r = await window.app.trace.engine.query('select count(*) as n from slice');
      return Number(r.firstRow({n: 0}).n);
    });
    console.log('the UI\'s engine holds ' + slices + ' slices; the converter wrote ' + events);
    expect(events > 0 && slices === events, 'slices in the UI: ' + slices + ', written ' + events);
    const errors = await page.evaluate(async () => {
      const r = await window.app.trace.engine.query(
        "select coalesce(sum(value), 0) as n from stats where severity = 'error'");
      return Number(r.firstRow({n: 0}).n);
    });
    expect(errors === 0, 'import errors in the UI\'s engine: ' + errors);
    await page.screenshot({path: path.join(work, 'ui.png')});
    expect(/is open in .*on 127\.0\.0\.1:9001/.test(stderr) && /use loaded trace/.test(stderr),
           'said where the trace is open: ' + stderr.slice(-400));

    // Ctrl-C stops --open and the engine with it (the page goes first: its
    // connection to the engine would end in errors).
    await page.close();
    open.kill('SIGINT');
    const code = await new Promise(r => open.exitCode !== null ? r(open.exitCode) : open.once('exit', r));
    expect(code === 0, '--open exit status after Ctrl-C: ' + code);
    for (let i = 0; i < 50 && await portOpen(9001); i++) await sleep(100);
    expect(!await portOpen(9001), 'the trace processor stopped with --open');
  } finally {
    await browser.close();
    ui.kill();
    if (open && open.exitCode === null) open.kill('SIGKILL');  // the engine goes with it (its keeper ends it)
  }
  console.log(checks.failures ? checks.failures + ' checks failed' : 'ok: opened through the native engine in Perfetto\'s UI');
  return checks.failures ? 1 : 0;
}

main().then(code => process.exit(code), e => { console.log('FAIL: ' + (e.stack || e)); process.exit(1); });
