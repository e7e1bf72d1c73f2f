// nsys-perfetto serve in a real browser (Debian's chromium, driven by
// playwright-core): a corpus report picked through the page's file input is
// uploaded and converted; the summary table shows the CLI's summary; the
// downloaded trace is the server's trace and passes pftrace-check; Open in
// Perfetto hands the whole trace, byte for byte, to a stand-in Perfetto UI
// served here that speaks the UI's postMessage protocol; the report uploaded
// twice and compared with itself passes with nothing changed. Saves a
// screenshot. Mode "big" (serve --open-limit 1K, so the trace is past what
// the browser holds): no Open button, but the download and the exact
// trace_processor_shell --httpd command for the downloaded file.
//   node browser_test.js NSYS_PERFETTO REPORT.sqlite PFTRACE_CHECK WORKDIR [big]
'use strict';
const {spawn, execFileSync} = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');
const readline = require('readline');

const [bin, report, check, work, mode] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SKIP = 77;

function loadPlaywright() {
  try { return require('playwright-core'); } catch (e) { /* not local: try the global one */ }
  try {
    const root = execFileSync('npm', ['root', '-g'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']}).trim();
    return require(path.join(root, 'playwright-core'));
  } catch (e) { return null; }
}

let failures = 0;
function expect(ok, what) {
  if (!ok) { failures++; console.log('FAIL: ' + what); }
}

// The stand-in Perfetto UI: its page, and what it was sent.
function standIn() {
  const page = fs.readFileSync(path.join(__dirname, 'perfetto_standin.html'));
  let resolveReceived;
  const received = new Promise(r => { resolveReceived = r; });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'GET' && url.pathname === '/ui/') {
      res.writeHead(200, {'Content-Type': 'text/html'});
      res.end(page);
    } else if (req.method === 'POST' && url.pathname === '/received') {
      const chunks = [];
      req.on('data', c => chunks.push(c));
      req.on('end', () => {
        res.end('ok');
        resolveReceived({body: Buffer.concat(chunks), params: Object.fromEntries(url.searchParams)});
      });
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise(r => server.listen(0, '127.0.0.1', () => r({server, received})));
}

// Starts the server on a free port; resolves with its URL.
function startServe(ui, extra) {
  const proc = spawn(bin, ['serve', '--port', '0', '--dir', path.join(work, 'reports'),
                           '--perfetto-ui', ui, ...(extra || [])], {stdio: ['ignore', 'pipe', 'inherit']});
  return new Promise((resolve, reject) => {
    readline.createInterface({input: proc.stdout}).once('line', url => resolve({proc, url}));
    proc.once('exit', code => reject(new Error('serve exited with ' + code)));
  });
}

async function main() {
  if (!fs.existsSync(CHROMIUM)) { console.log('skip: ' + CHROMIUM + ' absent'); return SKIP; }
  const playwright = loadPlaywright();
  if (!playwright) { console.log('skip: playwright-core not installed (npm install -g playwright-core)'); return SKIP; }
  if (!fs.existsSync(report)) { console.log('skip: ' + report + ' absent'); return SKIP; }
  if (!fs.existsSync(check)) { console.log('skip: ' + check + ' absent'); return SKIP; }

  const {server: ui, received} = await standIn();
  const uiUrl = 'http://127.0.0.1:' + ui.address().port + '/ui/';
  const {proc, url} = await startServe(uiUrl, mode === 'big' ? ['--open-limit', '1K'] : []);
  let stopping = false;
  proc.once('exit', (code, signal) => {  // a crash fails the test at once
    if (!stopping) { console.log('FAIL: serve died: ' + (signal || code)); process.exit(1); }
  });
  const browser = await playwright.chromium.launch({executablePath: CHROMIUM, headless: true});
  try {
    const context = await browser.newContext({acceptDownloads: true, viewport: {width: 1200, height: 900}});
    const page = await context.newPage();
    page.on('pageerror', e => expect(false, 'page error: ' + e.message));
    await page.goto(url);
    await page.waitForSelector('#serving:has-text("serving http://127.0.0.1:")');

    // Upload through the file input, as a user picking the file.
    await page.setInputFiles('#file', report);
    const done = await page.waitForSelector('.report[data-state="done"], .report[data-state="failed"]',
                                            {timeout: 120000});
    expect(await done.getAttribute('data-state') === 'done', 'conversion state: ' +
           await done.innerText());
    const id = await done.getAttribute('data-id');
    const serverTrace = path.join(work, 'reports', id, 'trace.perfetto-trace');
    expect(fs.existsSync(serverTrace), 'trace on the server at ' + serverTrace);

    if (mode === 'big') {
      // Past the limit: the download and the engine's command, no Open button.
      const fileName = path.basename(report, '.sqlite') + '.perfetto-trace';
      expect((await page.$$('button.open')).length === 0, 'no Open button for a trace past --open-limit');
      const command = await page.textContent('.too-big code.engine-command');
      expect(command === "trace_processor_shell --httpd './" + fileName + "'", 'engine command: ' + command);
      const note = await page.textContent('.too-big');
      expect(/Too big for the browser/.test(note) && note.includes(uiUrl), 'note: ' + note);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('a.download')]);
      expect(download.suggestedFilename() === fileName, 'download name ' + download.suggestedFilename());
      const saved = path.join(work, 'downloaded.perfetto-trace');
      await download.saveAs(saved);
      expect(fs.readFileSync(saved).equals(fs.readFileSync(serverTrace)), 'download equals the server trace');
      const list = await (await page.request.get(url + 'api/reports')).json();
      const entry = list.reports.find(r => r.id === id);
      expect(entry && entry.engine_bytes > 1024, 'the list gives the estimate: ' + JSON.stringify(entry));
      await page.screenshot({path: path.join(work, 'serve-big.png'), fullPage: true});
      return;
    }

    // The summary table shows the CLI's summary: its first kernel rows.
    await page.waitForSelector('table.summary tbody tr');
    const rows = await page.$$eval('table.summary tbody tr',
                                   trs => trs.map(tr => [...tr.cells].map(td => td.textContent)));
    const csv = execFileSync(bin, ['summary', '--csv', report], {encoding: 'utf8'}).trim().split('\n').slice(1)
      .map(l => l.split(','));
    const kernels = csv.filter(r => r[0] === 'kernel').slice(0, 5);
    expect(kernels.length > 0, 'the report has kernels');
    console.log('summary table: ' + rows.length + ' rows; checking ' + kernels.length + ' kernels');
    for (const k of kernels) {
      const row = rows.find(r => r[1] === k[1]);
      expect(row && row[0].startsWith('Kernels') && row[2].replace(/\D/g, '') === k[2] &&
             Math.round(parseFloat(row[3].replace(/,/g, '')) * 1e6) === Math.round(Number(k[3]) / 1000) * 1000,
             'summary row of ' + k[1] + ': page ' + JSON.stringify(row) + ', CLI ' + k.join(','));
    }
    const stats = await page.$$eval('table.stats tbody tr', trs => trs.map(tr => tr.cells[0].textContent));
    expect(stats.includes('kernel') && stats.includes('cuda-api'), 'accounting rows: ' + stats.join(' '));

    // Download: the server's trace, valid for trace_processor.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a.download')]);
    const saved = path.join(work, 'downloaded.perfetto-trace');
    await download.saveAs(saved);
    expect(download.suggestedFilename() === path.basename(report, '.sqlite') + '.perfetto-trace',
           'download name ' + download.suggestedFilename());
    expect(fs.readFileSync(saved).equals(fs.readFileSync(serverTrace)), 'download equals the server trace');
    try {
      execFileSync('python3', [check, saved], {stdio: 'pipe'});
    } catch (e) {
      expect(false, 'pftrace-check: ' + e.stdout + e.stderr);
    }

    await page.screenshot({path: path.join(work, 'serve.png'), fullPage: true});

    // Open in Perfetto: the stand-in UI gets the whole trace.
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('button.open')]);
    const got = await Promise.race([received, new Promise(r => setTimeout(() => r(null), 60000))]);
    expect(got !== null, 'the stand-in Perfetto UI received a trace');
    if (got) {
      console.log('the stand-in Perfetto UI received ' + got.body.length + ' bytes');
      expect(got.body.equals(fs.readFileSync(serverTrace)), 'Perfetto received the trace byte for byte (' +
             got.body.length + ' bytes)');
      expect(got.params.isArrayBuffer === 'true', 'sent as an ArrayBuffer');
      expect(got.params.title === path.basename(report), 'title ' + got.params.title);
      expect(got.params.fileName === path.basename(report, '.sqlite') + '.perfetto-trace',
             'fileName ' + got.params.fileName);
      expect(got.params.origin === url.replace(/\/$/, ''), 'sent from the page: ' + got.params.origin);
    }
    // The tab opens --perfetto-ui with our startup commands (docs/open.md).
    const [opened, commands] = popup.url().split('#!/?startupCommands=');
    expect(opened === uiUrl, 'opened --perfetto-ui: ' + popup.url().slice(0, 200));
    let view = [];
    try { view = JSON.parse(decodeURIComponent(commands || '')); } catch (e) { /* checked below */ }
    expect(Array.isArray(view) && view.map(c => c.id.replace('dev.perfetto.', '')).join() ===
           'ExpandTracksByRegex,PinTracksByRegex,RunQuery,RunQueryAndShowTab',
           'the tab\'s startup commands: ' + String(commands).slice(0, 200));

    // Compare: the same report uploaded again, both ticked, Compare: nsys-perfetto
    // diff's verdict for identical reports (pass, nothing changed).
    await page.bringToFront();
    await page.setInputFiles('#file', report);
    await page.waitForFunction(() => document.querySelectorAll('.report[data-state="done"]').length === 2,
                               null, {timeout: 120000});
    const ids = await page.$$eval('.report[data-state="done"]', boxes => boxes.map(b => b.dataset.id));
    for (const done of ids) await page.check('.report[data-id="' + done + '"] input.compare');
    await page.click('#compare-run');
    const verdict = await page.waitForSelector('#compare .verdict', {timeout: 30000});
    const text = await verdict.innerText();
    expect(/Verdict: pass/.test(text) && !/regression|improvement|added|removed/.test(text),
           'comparing a report with itself: ' + text);
    const changed = await page.$$('#compare table.compare-rows tbody tr');
    expect(changed.length === 0, 'no changed rows between identical reports: ' + changed.length);
  } finally {
    await browser.close();
    ui.close();
    stopping = true;
    proc.kill('SIGINT');
  }
  const code = await new Promise(r => proc.exitCode !== null ? r(proc.exitCode) : proc.once('exit', r));
  expect(code === 0, 'serve exit status after Ctrl-C: ' + code);
  console.log(failures ? failures + ' checks failed' : mode === 'big'
    ? 'ok: past --open-limit, the download and the engine command instead of Open'
    : 'ok: converted, summary, download, Open in Perfetto');
  return failures ? 1 : 0;
}

main().then(code => process.exit(code), e => { console.log('FAIL: ' + (e.stack || e)); process.exit(1); });
