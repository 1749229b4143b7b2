import type { AgentHook } from '../agent-hook';
import type { PayloadOf } from '../payloads';

export interface ErrorReport {
  sessionId: string;
  type: PayloadOf<'Error'>['error_type'];
  message: string;
  recoverable: boolean;
  at: string;
}

/** AtomCode's ErrorReportHook: keeps the recent errors and hands each one to the host. */
export class ErrorReportHook implements AgentHook {
  readonly name = 'ErrorReport';
  readonly description = 'Collects errors and reports them to the host log.';
  private readonly reports: ErrorReport[] = [];

  constructor(
    private readonly report: (r: ErrorReport) => void,
    private readonly keep = 100,
  ) {}

  recent(): readonly ErrorReport[] {
    return this.reports;
  }

  onError(p: PayloadOf<'Error'>) {
    const r: ErrorReport = {
      sessionId: p.session_id,
      type: p.error_type,
      message: p.error,
      recoverable: p.recoverable,
      at: new Date().toISOString(),
    };
    this.reports.push(r);
    if (this.reports.length > this.keep) this.reports.shift();
    this.report(r);
  }
}
