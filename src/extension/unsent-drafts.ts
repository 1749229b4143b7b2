import type { HostToChat } from '../shared/chat-protocol';

/**
 * Text the user sent that never ran, on its way back to the composer. A hidden chat view has
 * no page to receive it, so each draft is posted again whenever the page (re)loads, until the
 * page says it has put it in the composer.
 */
export class UnsentDrafts {
  private readonly unacknowledged = new Map<number, string>();
  private nextId = 1;

  constructor(private readonly post: (message: Extract<HostToChat, { type: 'restoreDraft' }>) => void) {}

  add(text: string): void {
    const id = this.nextId++;
    this.unacknowledged.set(id, text);
    this.post({ type: 'restoreDraft', id, text });
  }

  /** The page (re)loaded: whatever it has not confirmed goes again. */
  resend(): void {
    for (const [id, text] of this.unacknowledged) this.post({ type: 'restoreDraft', id, text });
  }

  acknowledge(id: number): void {
    this.unacknowledged.delete(id);
  }
}
