// Runs an Nx target over the projects (`node tools/scripts/run-tests.mjs <nx args…>`), its output passed through
// as it comes. When it fails, the failed tests' reports (vitest's "Failed Tests" sections, each under the task that
// printed it) are printed again at the end: with 36 projects the report of a failure is otherwise far up a long
// log, and a CI that keeps only the end of the output would lose it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';

const ANSI = /\x1b\[[0-9;]*m/g;
/** Lines kept of one task's report of failures. */
const MAX_REPORT_LINES = 200;
const nx = path.join(import.meta.dirname, '../../node_modules/.bin/nx');
const child = spawn(nx, process.argv.slice(2), { stdio: ['inherit', 'pipe', 'pipe'] });

const reports = [];
let task = '';
let report;
function note(line) {
  const started = line.match(/^> nx run (\S+)/);
  if (started) task = started[1];
  if (/⎯ Failed Tests \d+ ⎯/.test(line) || /⎯ Unhandled Errors ⎯/.test(line)) {
    report = [`${task || 'a task'}:`];
    reports.push(report);
  }
  if (!report) return;
  if (/^\s*Test Files\s/.test(line)) report = undefined;
  else if (report.length <= MAX_REPORT_LINES) report.push(report.length === MAX_REPORT_LINES ? '…' : line);
}
/** Passes a stream through and notes its lines (split per stream, so two streams never cut each other's lines). */
function passThrough(from, to) {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  from.on('data', (chunk) => {
    to.write(chunk);
    const lines = (partial + decoder.write(chunk)).split('\n');
    partial = lines.pop();
    for (const line of lines) note(line.replace(ANSI, ''));
  });
}
passThrough(child.stdout, process.stdout);
passThrough(child.stderr, process.stderr);
child.on('close', (code, signal) => {
  if (code !== 0 && reports.length) {
    console.log('\nWhat failed (repeated from above):\n');
    for (const lines of reports) console.log(lines.join('\n').trimEnd(), '\n');
  }
  process.exit(code ?? (signal ? 1 : 0));
});
