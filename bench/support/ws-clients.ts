// Fan-out receivers for bench `venue-http`: N WebSocket clients subscribe to one topic and count
// messages; prints "ready" once all are subscribed and {"received", "seconds"} after `expected` each.
// Usage: node ws-clients.js WS_URL CLIENTS EXPECTED_PER_CLIENT

import { WebSocket } from 'ws';

const [url, clientsText, expectedText] = process.argv.slice(2) as [string, string, string];
const clients = Number(clientsText);
const expected = Number(expectedText);
let subscribed = 0;
let done = 0;
let received = 0;
let start = 0n;

for (let i = 0; i < clients; i++) {
  const ws = new WebSocket(url);
  let mine = 0;
  ws.on('open', () => ws.send(JSON.stringify({ method: 'subscribe', subscription: [{ type: 'trades', symbol: 'ETH-USD' }] })));
  ws.on('message', (data) => {
    const text = data.toString();
    if (text.startsWith('{"type":"subscriptionResponse"')) {
      if (++subscribed === clients) process.stdout.write('ready\n');
      return;
    }
    if (mine === 0 && start === 0n) start = process.hrtime.bigint();
    received++;
    if (++mine === expected) {
      ws.close();
      if (++done === clients) {
        process.stdout.write(`${JSON.stringify({ received, seconds: Number(process.hrtime.bigint() - start) / 1e9 })}\n`);
        process.exit(0);
      }
    }
  });
}
