// The trace opens ready to work in Perfetto's own UI (issue 46): with the
// link --open prints, the GPU groups are expanded, the "GPU utilization" rows
// pinned, a tab shows the busiest GPU's kernels, and a query of the nsys
// package (SELECT * FROM nsys_cuda_gpu_kern_sum) runs on the query page
// without pasting anything. Both engines: the native one (--open past
// --open-limit: trace_processor_shell --httpd --add-sql-package) and the
// browser's link (the package's script in the link), the latter run on a
// plain trace_processor_shell, as the UI build here has no WebAssembly
// engine (RPC mode). And `ranks --trace OUT --open`: the straggler's note,
// its group pinned, the stragglers' tab. Skipped (77) without node's playwright-core, chromium,
// the UI build (../shared/tools/build-perfetto-ui) or trace_processor_shell.
//   node open_view_in_perfetto_ui.js NSYS_PERFETTO NSYS_FIXTURE TRACE_PROCESSOR WORKDIR
// Leaves WORKDIR/open-view.png, the screenshot of docs/open.md.
'use strict';
const {spawn, execFileSync} = require('child_process');
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const [bin, fixture, engine, work] = process.argv.slice(2);
const {CHROMIUM, DIST, SKIP, checks, expect, portOpen, freePort, sleep, uiOrSkip} =
  require('./perfetto_ui_common');

function firstLine(proc) {
  return new Promise(resolve => {
    readline.createInterface({input: proc.stdout}).once('line', resolve);
    proc.once('exit', () => resolve(null));
  });
}

function stopped(proc) {
  return new Promise(resolve => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', resolve);
    proc.kill('SIGINT');
  });
}

// The "Returned N rows" line of a query's result on screen, once there is
// one (null after timeout ms).
async function returnedRows(page, timeout) {
  const find = () => [...document.querySelectorAll('div, span')]
    .filter(e => e.offsetParent !== null)
    .map(e => e.textContent).find(t => /^Returned \d+ rows?/.test(t)) || null;
  return page.waitForFunction(find, null, {timeout}).then(h => h.jsonValue(), () => null);
}

// Opens link (the UI in RPC mode on 127.0.0.1:9001), and checks what the
// startup commands left: groups expanded, rows pinned, the tab, the package.
async function checkOpened(browser, link, what, shot) {
  const page = await (await browser.newContext({viewport: {width: 1600, height: 1000}})).newPage();
  page.on('pageerror', e => expect(false, what + ': page error: ' + e.message.slice(0, 300)));
  page.on('console', m => m.type() === 'error' && console.log(what + ': console: ' + m.text().slice(0, 300)));
  await page.goto(link, {waitUntil: 'load'});
  const yes = page.getByRole('button', {name: 'YES, use loaded trace'});
  await yes.waitFor({timeout: 60000}).catch(async e => {
    await page.screenshot({path: path.join(work, 'no-prompt.png')});
    throw e;
  });
  await yes.click();
  const ok = page.locator('.pf-cookie-consent button', {hasText: 'OK'});
  if (await ok.count()) await ok.first().click();
  // The tab is the last command: once it shows rows, the others ran.
  const shown = await returnedRows(page, 120000);
  expect(shown, what + ': no query tab with rows (the startup commands did not run)');
  expect(await page.getByText('Some startup commands did not run').count() === 0,
         what + ': the UI blocked or failed a startup command');
  expect(await page.getByText('nsys: kernels of the busiest GPU').count() > 0,
         what + ': the tab is not the busiest GPU\'s kernels');
  const state = await page.evaluate(() => {
    const ws = window.app.trace.currentWorkspace;
    const gpus = ws.flatTracks.filter(t => /^GPU \d+/.test(t.name) && t.hasChildren);
    return {gpus: gpus.length, expanded: gpus.filter(t => t.expanded).length,
            pinned: ws.pinnedTracks.map(t => t.name)};
  });
  expect(state.gpus >= 2 && state.expanded === state.gpus,
         what + ': GPU groups expanded: ' + state.expanded + ' of ' + state.gpus);
  expect(state.pinned.length === state.gpus && state.pinned.every(n => n === 'GPU utilization'),
         what + ': pinned rows: ' + JSON.stringify(state.pinned));
  await page.mouse.move(1550, 970);
  await page.waitForTimeout(1500);
  if (shot) await page.screenshot({path: shot});
  // The package, queried on the query page as a user would: nothing pasted.
  await page.evaluate(() => { location.hash = '#!/query'; });
  await page.waitForTimeout(2500);
  const editor = page.locator('.cm-content').first();
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type('SELECT * FROM nsys_cuda_gpu_kern_sum');
  await page.keyboard.press('Control+Enter');
  const rows = await returnedRows(page, 30000);
  if (!expect(rows && Number(rows.match(/\d+/)[0]) > 0,
              what + ': SELECT * FROM nsys_cuda_gpu_kern_sum on the query page: ' + rows))
    await page.screenshot({path: path.join(work, 'query-failed.png')});
  await page.context().close();
}

async function main() {
  const playwright = await uiOrSkip(engine);
  if (!playwright) return SKIP;

  fs.rmSync(work, {recursive: true, force: true});
  fs.mkdirSync(work, {recursive: true});
  const report = path.join(work, 'view.sqlite');
  const trace = path.join(work, 'view.perfetto-trace');
  execFileSync(fixture, ['--events', '5000', '--nvtx', report], {stdio: 'inherit'});

  const uiPort = await freePort();
  const ui = spawn('python3', ['-m', 'http.server', String(uiPort), '--bind', '127.0.0.1',
                               '--directory', DIST], {stdio: 'ignore'});
  const uiUrl = 'http://127.0.0.1:' + uiPort + '/';
  const browser = await playwright.chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
  let open = null, plain = null;
  try {
    while (!await portOpen(uiPort)) await sleep(200);
    // The native engine: --open past --open-limit.
    open = spawn(bin, ['-q', '--open', '--open-limit', '1K', '--trace-processor', engine,
                       '--perfetto-ui', uiUrl, '-o', trace, report], {stdio: ['ignore', 'pipe', 'inherit']});
    const link = await firstLine(open);
    if (!expect(link && link.startsWith(uiUrl + '#!/?startupCommands='), 'native: link ' + link)) return 1;
    await checkOpened(browser, link, 'native engine', path.join(work, 'open-view.png'));
    await stopped(open);
    open = null;

    // The browser's link: its startup commands carry the package's script.
    const served = spawn(bin, ['-q', '--open', '--open-timeout', '1', '--perfetto-ui', uiUrl, '-o',
                               trace, report], {stdio: ['ignore', 'pipe', 'inherit']});
    const browserLink = await firstLine(served);
    await stopped(served);
    const commands = browserLink && browserLink.split('&startupCommands=')[1];
    if (!expect(commands, 'browser: link ' + browserLink)) return 1;
    plain = spawn(engine, ['--httpd', '--http-additional-cors-origins', uiUrl.replace(/\/$/, ''), trace],
                  {stdio: 'ignore'});
    while (!await portOpen(9001)) await sleep(200);
    await checkOpened(browser, uiUrl + '#!/?startupCommands=' + commands, 'browser link (its script)',
                      null);

    // ranks --trace OUT --open: the overview, the straggler noted and pinned.
    await stopped(plain);
    plain = null;
    const job = path.join(work, 'job');
    const overview = path.join(work, 'job.perfetto-trace');
    execFileSync(fixture, ['--job', '4', '--straggler', '2', job], {stdio: 'ignore'});
    const ranks = spawn(bin, ['ranks', '--no-convert', '--trace', overview, '--open', job],
                        {stdio: ['ignore', 'pipe', 'ignore']});
    const ranksLink = await new Promise(resolve => {
      const lines = readline.createInterface({input: ranks.stdout});
      lines.on('line', l => { if (l.startsWith('https://ui.perfetto.dev/#!/?url=')) resolve(l); });
      ranks.once('exit', () => resolve(null));
    });
    await stopped(ranks);
    const ranksCommands = ranksLink && ranksLink.split('&startupCommands=')[1];
    if (!expect(ranksCommands, 'ranks --open: link ' + ranksLink)) return 1;
    plain = spawn(engine, ['--httpd', '--http-additional-cors-origins', uiUrl.replace(/\/$/, ''),
                           overview], {stdio: 'ignore'});
    while (!await portOpen(9001)) await sleep(200);
    const page = await (await browser.newContext({viewport: {width: 1600, height: 1000}})).newPage();
    await page.goto(uiUrl + '#!/?startupCommands=' + ranksCommands, {waitUntil: 'load'});
    await page.getByRole('button', {name: 'YES, use loaded trace'}).click({timeout: 60000});
    const rows = await returnedRows(page, 120000);
    expect(rows === 'Returned 1 rows' || /^Returned 1 rows?/.test(rows || ''),
           'ranks --open: the stragglers tab: ' + rows);
    const ranksState = await page.evaluate(() => ({
      notes: [...window.app.trace.notes.notes.values()].map(n => n.text),
      pinned: window.app.trace.currentWorkspace.pinnedTracks.map(t => t.name)}));
    expect(ranksState.notes.length === 1 && ranksState.notes[0].startsWith('rank 2:'),
           'ranks --open: notes ' + JSON.stringify(ranksState.notes));
    expect(ranksState.pinned.join() === 'rank 2,GPU utilization',
           'ranks --open: pinned ' + JSON.stringify(ranksState.pinned));
    await page.context().close();
  } finally {
    await browser.close();
    if (open) await stopped(open);
    if (plain) await stopped(plain);
    ui.kill();
  }
  console.log(checks.failures ? checks.failures + ' checks.failures' : 'open_view_in_perfetto_ui: ok');
  return checks.failures ? 1 : 0;
}

main().then(code => process.exit(code), e => { console.log('FAIL: ' + e.stack); process.exit(1); });
