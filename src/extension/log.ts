import type * as vscode from 'vscode';
import type { EngineLogger } from '../core/engine/hook-engine';
import { scrubText } from './secret-scrubber';

/** The "Hookpilot" LogOutputChannel; every line is scrubbed of the API key first. */
export class HookpilotLog {
  constructor(
    private readonly channel: vscode.LogOutputChannel,
    private readonly secrets: () => readonly string[],
  ) {}

  info(message: string): void {
    this.channel.info(scrubText(message, this.secrets()));
  }

  warn(message: string): void {
    this.channel.warn(scrubText(message, this.secrets()));
  }

  error(message: string): void {
    this.channel.error(scrubText(message, this.secrets()));
  }

  readonly engineLogger: EngineLogger = (level, message) => this[level](message);

  show(): void {
    this.channel.show(true);
  }
}
