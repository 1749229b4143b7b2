import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { renderWebviewHtml } from '../../../src/shared/webview-html';
import { FIXTURES_BUNDLE } from './build-webviews';

const ROOT = path.resolve(__dirname, '../../..');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.ttf': 'font/ttf',
  '.html': 'text/html; charset=utf-8',
};

export interface WebviewServer {
  origin: string;
  /** The page of a view, as the extension host would produce it, plus the fake VS Code API and theme. */
  pageUrl(view: 'chat' | 'manager'): string;
  close(): Promise<void>;
}

function page(view: 'chat' | 'manager', origin: string): string {
  const nonce = randomBytes(16).toString('base64');
  const html = renderWebviewHtml({
    title: view,
    cspSource: origin,
    nonce,
    scriptUri: `${origin}/dist/webview/${view}.js`,
    styleUri: `${origin}/dist/webview/${view}.css`,
    codiconUri: `${origin}/codicons/codicon.css`,
  });
  // VS Code injects its theme variables and the API before the page's own script runs.
  return html
    .replace('</head>', `<link rel="stylesheet" href="${origin}/harness/theme.css">\n</head>`)
    .replace('<body>', '<body class="vscode-dark">')
    .replace(
      `<script nonce="${nonce}" src=`,
      `<script nonce="${nonce}" src="${origin}/harness/fake-vscode-api.js"></script>\n<script nonce="${nonce}" src="${origin}/dist/webview/${FIXTURES_BUNDLE}"></script>\n<script nonce="${nonce}" src=`,
    );
}

/** Serves the webview bundles built into `bundleDir` on 127.0.0.1, inside a page that plays VS Code. */
export async function startWebviewServer(bundleDir: string): Promise<WebviewServer> {
  const mounts: Array<[string, string]> = [
    ['/dist/webview/', bundleDir],
    ['/codicons/', path.join(ROOT, 'node_modules/@vscode/codicons/dist')],
    ['/harness/', __dirname],
  ];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const view = url.pathname.match(/^\/(chat|manager)\.html$/)?.[1] as 'chat' | 'manager' | undefined;
    if (view) {
      res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' });
      res.end(page(view, origin));
      return;
    }
    // Only the mounted directories are reachable.
    const mount = mounts.find(([prefix]) => url.pathname.startsWith(prefix));
    const file = mount && path.join(mount[1], decodeURIComponent(url.pathname.slice(mount[0].length)));
    if (!mount || !file || !file.startsWith(mount[1] + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => {
        res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
        res.end(body);
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageUrl: (view) => `${origin}/${view}.html`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
