#!/usr/bin/env node
// Reads the probe's result file and turns it into a verdict: one PASS/FAIL line per check and
// exit 0 only when every expected check is present and passed. A check the probe did not run
// is a failure, so a probe that stopped early cannot pass.
'use strict';

const fs = require('fs');

const EXPECTED = [
  'diagnostics',
  'codeLens',
  'hover',
  'outlinedProgram',
  'outlinedTitleAndNames',
  'quickFix',
  'remoteSettings',
  'passTrace',
  'restoredAfterReload',
];

function verdict(result) {
  const lines = [`${result.app} ${result.vscode}, extension ${result.extension ?? '?'}, probe ${result.ms ?? '?'} ms`];
  let ok = true;
  if (result.error) {
    lines.push(`FAIL probe: ${result.error}`);
    ok = false;
  }
  const byName = new Map((result.checks ?? []).map((check) => [check.name, check]));
  for (const name of EXPECTED) {
    const check = byName.get(name);
    if (!check) {
      lines.push(`FAIL ${name}: not run`);
      ok = false;
    } else if (check.ok) {
      lines.push(`PASS ${name} (${check.ms} ms)`);
    } else {
      lines.push(`FAIL ${name} (${check.ms} ms): ${JSON.stringify(check.detail, null, 1)}`);
      ok = false;
    }
  }
  return { ok, lines };
}

const file = process.argv[2];
if (!file || !fs.existsSync(file)) {
  console.error(`FAIL: no result file ${file ?? '(none given)'}`);
  process.exit(1);
}
const { ok, lines } = verdict(JSON.parse(fs.readFileSync(file, 'utf8')));
console.log(lines.join('\n'));
process.exit(ok ? 0 : 1);
