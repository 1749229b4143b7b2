import type { EngineHost } from './engine-host';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';
import type { PendingConfigChange } from './pending-config-guard';
import { errorMessage } from '../core/error-message';
import { describeBlockedChange } from '../core/hooks/config-change';
import { showInformation, showWarning } from './notifications';
import { appliedBefore, heldConfigKind } from '../shared/held-config-wording';

const REVIEW_ACTION = 'Review';
const DISCARD_ACTION = 'Discard';

/** What a person is told after discarding: the engine keeps the applied content, the file does not. */
export function discardedMessage(change: PendingConfigChange): string {
  return (
    `Hookpilot: the change was discarded; ${appliedBefore(change.governs)} stay in force. ` +
    `${change.label} on disk still differs from them, and will apply only if you save it from the editor or apply it.`
  );
}

/**
 * Asks a person about each change held back from the hook configuration: Review opens the
 * Hook Manager on its diff, Discard keeps the applied configuration. There is no Apply here:
 * a change no person made loads only from the Hook Manager, where its diff is on screen.
 */
export class PendingConfigNotifier extends Disposable {
  /** Files with a question on screen: a file rewritten again and again asks once, not once per write. */
  private readonly asking = new Set<string>();

  constructor(
    private readonly engineHost: EngineHost,
    private readonly review: () => void,
    private readonly log: HookpilotLog,
  ) {
    super();
    this._register(engineHost.onDidHoldChange((change) => void this.ask(change)));
    // A change settled elsewhere (the Hook Manager, a save) leaves its question stale: the next change asks again.
    this._register(
      engineHost.onDidChangePending(() => {
        for (const file of this.asking) if (!engineHost.pendingChanges.some((c) => c.file === file)) this.asking.delete(file);
      }),
    );
  }

  private async ask(change: PendingConfigChange): Promise<void> {
    if (this.asking.has(change.file)) return;
    this.asking.add(change.file);
    // A change a ConfigChange hook blocked was a person's: say which hook kept it out, and why.
    const what = change.blockedBy
      ? `Hookpilot: ${describeBlockedChange(change.label, change.blockedBy)}. `
      : `${heldConfigKind(change.governs)} changed on disk outside the editor: ${change.label}. `;
    const answer = await showWarning(
      `${what}Hookpilot keeps ${appliedBefore(change.governs)} until you review the change and apply it.`,
      REVIEW_ACTION,
      DISCARD_ACTION,
    );
    this.asking.delete(change.file);
    try {
      if (answer === REVIEW_ACTION) this.review();
      else if (answer === DISCARD_ACTION) {
        void showInformation(discardedMessage(this.engineHost.discardPending(change.id)));
      }
    } catch (error) {
      const message = errorMessage(error);
      this.log.warn(`${change.label}: ${message}`);
      void showWarning(`Hookpilot: ${message}.`, REVIEW_ACTION).then((again) => {
        if (again === REVIEW_ACTION) this.review();
      });
    }
  }
}
