import { describe, expect, it } from 'vitest';
import { renderWebviewHtml } from '../../src/shared/webview-html';

const options = {
  title: 'Hookpilot',
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'bm9uY2Utb25l',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/chat.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/chat.css',
  codiconUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/node_modules/@vscode/codicons/dist/codicon.css',
};

describe('renderWebviewHtml', () => {
  it('allows scripts only by nonce, and styles and fonts only from the extension', () => {
    const html = renderWebviewHtml(options);
    const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1];
    expect(csp?.split('; ')).toEqual([
      "default-src 'none'",
      `style-src ${options.cspSource} 'nonce-${options.nonce}'`,
      `font-src ${options.cspSource}`,
      `img-src ${options.cspSource} data:`,
      `script-src 'nonce-${options.nonce}'`,
    ]);
    expect(html).not.toMatch(/unsafe-(inline|eval)/);
    expect(html).toContain(`<script nonce="${options.nonce}" src="${options.scriptUri}"></script>`);
    expect(html).toContain(`href="${options.codiconUri}" id="vscode-codicon-stylesheet"`);
    expect(html).toContain('<div id="app"></div>');
  });

  it('escapes what it puts into attributes and the title', () => {
    const html = renderWebviewHtml({ ...options, title: '<Hook & "Pilot">', scriptUri: 'x" onload="alert(1)' });
    expect(html).toContain('<title>&lt;Hook &amp; &quot;Pilot&quot;&gt;</title>');
    expect(html).toContain('src="x&quot; onload=&quot;alert(1)"');
  });
});
