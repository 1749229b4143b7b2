import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { McpServerView } from '../../src/shared/manager-views';
import { button, h, icon, setText } from '../common/dom';

const STATE_ICONS: Record<McpServerView['state'], string> = {
  starting: 'loading',
  connected: 'pass',
  failed: 'error',
  disabled: 'circle-slash',
  untrusted: 'workspace-untrusted',
  stopped: 'debug-stop',
};

const STATE_NOTES: Partial<Record<McpServerView['state'], string>> = {
  untrusted: "Restricted Mode: this workspace's servers don't start until you trust this folder.",
  disabled: 'Turned off for this workspace: its tools are not offered.',
  stopped: 'Not started yet: it starts with the next chat.',
};

const SOURCE_LABELS: Record<McpServerView['sourceKind'], string> = { user: 'user settings', workspace: 'workspace', cli: 'command line' };

/** One server: state, transport, where it is defined, its last error and tools; Restart and an on/off toggle. */
class McpServerCard {
  readonly el: HTMLElement;
  private readonly stateIcon = h('span', { class: 'mcp-state-icon' });
  private readonly state = h('span', { class: 'mcp-state', attrs: { 'data-testid': 'mcp-state' } });
  private readonly meta = h('span', { class: 'mcp-meta muted' });
  private readonly note = h('div', { class: 'mcp-note muted', attrs: { 'data-testid': 'mcp-note' } });
  private readonly error = h('div', { class: 'mcp-error mono', attrs: { 'data-testid': 'mcp-error' } });
  private readonly toolCount = h('summary', { class: 'mcp-tool-count' });
  private readonly tools = h('ul', { class: 'mcp-tools', attrs: { 'data-testid': 'mcp-tools' } });
  private readonly toggle = document.createElement('vscode-checkbox');
  private readonly restart: HTMLElement;

  constructor(
    private view: McpServerView,
    post: (message: ManagerToHost) => void,
  ) {
    this.toggle.toggle = true;
    this.toggle.dataset.testid = 'mcp-toggle';
    this.toggle.addEventListener('change', () => post({ type: 'toggleMcpServer', name: this.view.name, enabled: this.toggle.checked }));
    const restart = () => post({ type: 'restartMcpServer', name: this.view.name });
    this.restart = button('Restart', restart, { secondary: true, icon: 'debug-restart', testId: 'mcp-restart' });
    const details = h('details', { class: 'mcp-tool-list', attrs: { open: '' } }, this.toolCount, this.tools);
    this.el = h(
      'div',
      { class: 'mcp-server', attrs: { 'data-testid': 'mcp-server', 'data-server': view.name } },
      h(
        'div',
        { class: 'mcp-head' },
        this.toggle,
        this.stateIcon,
        h('strong', { class: 'mcp-name', text: view.name }),
        this.state,
        this.meta,
        h('span', { class: 'spacer' }),
        this.restart,
      ),
      this.note,
      this.error,
      details,
    );
    this.update(view);
  }

  update(view: McpServerView): void {
    this.view = view;
    this.el.dataset.state = view.state;
    this.stateIcon.replaceChildren(icon(STATE_ICONS[view.state], view.state === 'starting' ? 'codicon-modifier-spin' : ''));
    setText(this.state, view.state);
    setText(this.meta, `${view.transport} · ${SOURCE_LABELS[view.sourceKind]}${view.file ? ` (${view.file})` : ''}`);
    this.toggle.checked = view.enabled;
    this.toggle.title = view.enabled ? 'Turn this server off for this workspace' : 'Turn this server on for this workspace';
    const runnable = view.enabled && view.state !== 'untrusted' && view.state !== 'starting';
    if (runnable) this.restart.removeAttribute('disabled');
    else this.restart.setAttribute('disabled', '');
    const note = STATE_NOTES[view.state];
    this.note.hidden = note === undefined;
    setText(this.note, note ?? '');
    this.error.hidden = view.error === undefined;
    setText(this.error, view.error ?? '');
    setText(this.toolCount, `${view.tools.length} tool${view.tools.length === 1 ? '' : 's'}`);
    this.tools.replaceChildren(
      ...view.tools.map((t) =>
        h(
          'li',
          { class: 'mcp-tool', attrs: { 'data-testid': 'mcp-tool' }, title: t.description },
          h('span', { class: 'mono', text: t.qualifiedName }),
          h('span', { class: 'muted mcp-tool-description', text: t.description }),
        ),
      ),
    );
  }
}

/** The MCP servers of this window, live: each state change is a new snapshot from the host. */
export class McpTab {
  readonly el: HTMLElement;
  private readonly list = h('div', { class: 'mcp-servers' });
  private readonly empty = h('div', {
    class: 'mcp-empty muted',
    attrs: { 'data-testid': 'mcp-empty' },
    text: 'No MCP server is configured: add one to .mcp.json, .vscode/mcp.json or the hookpilot.mcpServers user setting.',
  });
  private readonly cards = new Map<string, McpServerCard>();

  constructor(private readonly post: (message: ManagerToHost) => void) {
    this.el = h('div', { class: 'tab-panel mcp-tab' }, this.empty, this.list);
  }

  setServers(servers: readonly McpServerView[]): void {
    this.empty.hidden = servers.length > 0;
    const next = new Map<string, McpServerCard>();
    for (const server of servers) {
      const card = this.cards.get(server.name);
      if (card) card.update(server);
      next.set(server.name, card ?? new McpServerCard(server, this.post));
    }
    this.cards.clear();
    for (const [name, card] of next) this.cards.set(name, card);
    this.list.replaceChildren(...[...next.values()].map((c) => c.el));
  }
}
