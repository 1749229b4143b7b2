#!/usr/bin/env node
// The demo's audit webhook receiver: prints each event POSTed by the http hook and appends
// it to .hookpilot-demo/webhook-audit.jsonl. Answers 204 (no decision): it only observes.
const http = require('http');
const fs = require('fs');
const path = require('path');

const port = Number(process.env.HOOKPILOT_DEMO_RECEIVER_PORT || 7777);
const out = path.join(__dirname, '..', '.hookpilot-demo', 'webhook-audit.jsonl');
fs.mkdirSync(path.dirname(out), { recursive: true });

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        const event = JSON.parse(body);
        fs.appendFileSync(out, JSON.stringify({ received: new Date().toISOString(), event }) + '\n');
        console.log(`[audit-webhook] ${event.hook_event_name}${event.tool_name ? ` ${event.tool_name}` : ''}`);
      } catch {
        console.log('[audit-webhook] ignored a body that is not JSON');
      }
      res.writeHead(204).end();
    });
  })
  .listen(port, '127.0.0.1', function () {
    console.log(`[audit-webhook] listening on http://127.0.0.1:${this.address().port}/audit`);
  });
