import {
  managerTabSchema,
  receiveHostToManager,
  type HostToManager,
  type ManagerTab,
  type ManagerToHost,
} from '../../src/shared/manager-protocol';
import { button, h, icon, setText } from '../common/dom';
import { HostChannel } from '../common/host-channel';
import { ApprovalsTab } from './approvals-tab';
import { HooksTab } from './hooks-tab';
import { McpTab } from './mcp-tab';
import { PendingConfigSection } from './pending-config';
import { TimelineTab } from './timeline-tab';

const TAB_LABELS: Record<ManagerTab, string> = { hooks: 'Hooks', approvals: 'Approvals', timeline: 'Timeline', mcp: 'MCP' };

function readSavedTab(raw: unknown): ManagerTab | undefined {
  const tab = typeof raw === 'object' && raw !== null ? (raw as { tab?: unknown }).tab : undefined;
  const parsed = managerTabSchema.safeParse(tab);
  return parsed.success ? parsed.data : undefined;
}

/** The Hook Manager: Hooks, Approvals, Timeline and MCP tabs under a Restricted Mode banner. */
export class ManagerApp {
  private readonly channel = new HostChannel<ManagerToHost, HostToManager>();
  private readonly hooks: HooksTab;
  private readonly approvals: ApprovalsTab;
  private readonly timeline: TimelineTab;
  private readonly mcp: McpTab;
  private readonly tabs = new Map<ManagerTab, { button: HTMLElement; panel: HTMLElement }>();
  private readonly approvalCount = document.createElement('vscode-badge');
  private readonly trustBanner: HTMLElement;
  private readonly pendingConfig: PendingConfigSection;
  private current: ManagerTab;

  constructor(root: HTMLElement) {
    const post = (message: ManagerToHost) => this.channel.post(message);
    this.hooks = new HooksTab(post, (hook) => {
      this.show('timeline');
      this.timeline.showHook(hook);
    });
    this.approvals = new ApprovalsTab(post);
    this.timeline = new TimelineTab(post);
    this.mcp = new McpTab(post);
    this.approvalCount.setAttribute('variant', 'counter');
    this.approvalCount.hidden = true;
    this.trustBanner = h(
      'div',
      { class: 'banner trust-banner', attrs: { 'data-testid': 'trust-banner', role: 'status' } },
      icon('workspace-untrusted'),
      h(
        'span',
        { class: 'banner-text' },
        h('strong', { text: 'Restricted Mode. ' }),
        "Hooks from this workspace (.vscode/hooks.json and workspace settings) don't run until you trust this folder: they could run any command. Your user and built-in hooks still run.",
      ),
      button('Manage Workspace Trust', () => post({ type: 'manageTrust' }), { secondary: true, testId: 'manage-trust' }),
    );
    this.trustBanner.hidden = true;
    this.pendingConfig = new PendingConfigSection(post);
    const panels = { hooks: this.hooks.el, approvals: this.approvals.el, timeline: this.timeline.el, mcp: this.mcp.el };
    const bar = h('div', { class: 'tab-bar', attrs: { role: 'tablist' } });
    for (const tab of managerTabSchema.options) {
      const tabButton = h(
        'button',
        { class: 'tab', attrs: { role: 'tab', 'data-tab': tab, 'data-testid': `tab-${tab}` }, on: { click: () => this.show(tab) } },
        TAB_LABELS[tab],
        tab === 'approvals' ? this.approvalCount : null,
      );
      bar.append(tabButton);
      this.tabs.set(tab, { button: tabButton, panel: panels[tab] });
    }
    root.replaceChildren(
      h(
        'div',
        { class: 'manager-app' },
        bar,
        this.trustBanner,
        this.pendingConfig.el,
        h('div', { class: 'tab-panels' }, this.hooks.el, this.approvals.el, this.timeline.el, this.mcp.el),
      ),
    );
    this.current = this.channel.savedState(readSavedTab) ?? 'hooks';
    this.show(this.current);
    this.channel.listen(receiveHostToManager, (message) => this.onMessage(message));
    post({ type: 'ready' });
  }

  private show(tab: ManagerTab): void {
    this.current = tab;
    for (const [name, { button: tabButton, panel }] of this.tabs) {
      tabButton.setAttribute('aria-selected', String(name === tab));
      tabButton.classList.toggle('is-active', name === tab);
      panel.hidden = name !== tab;
    }
    this.channel.saveState({ tab });
  }

  private onMessage(message: HostToManager): void {
    switch (message.type) {
      case 'hooks':
        this.hooks.setHooks(message.hooks, message.disableAllHooks);
        return;
      case 'problems':
        this.hooks.setProblems(message.problems);
        return;
      case 'approvals':
        this.approvals.setPending(message.pending);
        setText(this.approvalCount, String(message.pending.length));
        this.approvalCount.hidden = message.pending.length === 0;
        return;
      case 'trust':
        this.trustBanner.hidden = message.trusted;
        return;
      case 'timelineReset':
        this.timeline.reset(message.sessionId, message.records, message.sessions, message.shortened);
        return;
      case 'timelineAppend':
        this.timeline.append(message.sessionId, message.records, message.shortened);
        return;
      case 'timelineSessions':
        this.timeline.setSessions(message.sessions);
        return;
      case 'timelineRecord':
        this.timeline.showFullRecord(message.sessionId, message.record);
        return;
      case 'testResult':
        this.hooks.showTestResult(message.id, message.result);
        return;
      case 'showTab':
        this.show(message.tab);
        if (message.hook) this.timeline.showHook(message.hook);
        return;
      case 'pendingConfig':
        this.pendingConfig.set(message.changes);
        return;
      case 'mcpServers':
        this.mcp.setServers(message.servers);
        return;
    }
  }
}
