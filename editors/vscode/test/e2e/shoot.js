#!/usr/bin/env node
// Screenshots for the e2e run (PYPTO_E2E_SHOTS): connects to headless Chromium's DevTools port
// and, each time the probe writes `<dir>/<name>.ready`, captures the page as `<dir>/<name>.png`.
// Stops when the probe writes `<dir>/done`, or after 5 minutes. Needs Node 22+ (WebSocket).
'use strict';

const fs = require('fs');
const [port, dir] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function page() {
  for (let i = 0; i < 300; i++) {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
      const found = targets.find((t) => t.type === 'page' && t.webSocketDebuggerUrl);
      if (found) return found.webSocketDebuggerUrl;
    } catch {
      // chromium is still starting
    }
    await sleep(200);
  }
  throw new Error('no page on the DevTools port');
}

async function main() {
  const socket = new WebSocket(await page());
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let id = 0;
  const pending = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  };
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  const deadline = Date.now() + 5 * 60 * 1000;
  while (!fs.existsSync(`${dir}/done`) && Date.now() < deadline) {
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ready'))) {
      const name = file.slice(0, -'.ready'.length);
      const answer = await send('Page.captureScreenshot', { format: 'png' });
      fs.writeFileSync(`${dir}/${name}.png`, Buffer.from(answer.result.data, 'base64'));
      fs.unlinkSync(`${dir}/${file}`);
    }
    await sleep(100);
  }
  socket.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
