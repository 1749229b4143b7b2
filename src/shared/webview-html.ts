/** The page every Hookpilot webview loads; the host fills in URIs and a fresh nonce per load. */
export interface WebviewHtmlOptions {
  title: string;
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random value per page load (base64 or hex), used for scripts and styles. */
  nonce: string;
  /** `webview.asWebviewUri` of dist/webview/<view>.js and .css. */
  scriptUri: string;
  styleUri: string;
  /** `webview.asWebviewUri` of node_modules/@vscode/codicons/dist/codicon.css (its font sits next to it). */
  codiconUri: string;
}

const escapeAttr = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The HTML skeleton: a strict CSP (scripts only with the nonce; styles and fonts only
 * from the extension; no remote images, frames or connections), the codicon stylesheet
 * with the id @vscode-elements looks for, and the `#app` root the bundle renders into.
 */
export function renderWebviewHtml(options: WebviewHtmlOptions): string {
  const nonce = escapeAttr(options.nonce);
  const csp = [
    "default-src 'none'",
    `style-src ${options.cspSource} 'nonce-${options.nonce}'`,
    `font-src ${options.cspSource}`,
    `img-src ${options.cspSource} data:`,
    `script-src 'nonce-${options.nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(options.codiconUri)}" id="vscode-codicon-stylesheet" nonce="${nonce}">
<link rel="stylesheet" href="${escapeAttr(options.styleUri)}" nonce="${nonce}">
<title>${escapeAttr(options.title)}</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${escapeAttr(options.scriptUri)}"></script>
</body>
</html>
`;
}
