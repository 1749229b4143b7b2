import type { AuditSink } from '../../audit/records';
import type { AgentHook } from '../agent-hook';
import { AuditLogHook } from './audit-log-hook';
import { AutoCommitHook } from './auto-commit-hook';
import { CancellationHook } from './cancellation-hook';
import { ErrorReportHook, type ErrorReport } from './error-report-hook';
import { MetricsHook } from './metrics-hook';
import { ResponseValidationHook } from './response-validation-hook';
import { SessionSummaryHook } from './session-summary-hook';
import { TurnStatsHook } from './turn-stats-hook';

export interface BuiltinHookDeps {
  audit: AuditSink;
  /** Where SessionSummary keeps its summaries. */
  storageDir: string;
  /** The engine's redactor, for what SessionSummary writes. */
  redact?: (text: string) => string;
  reportError: (report: ErrorReport) => void;
  /** Folders besides the session's the agent may write (additional directories): AutoCommit's git takes no program from there. */
  writableRoots?: () => readonly string[];
  /** The session's credential variables (http hooks' allowedEnvVars): AutoCommit's git runs without them. */
  secretEnvNames?: () => readonly string[];
}

/** The built-in hooks other hook systems ship (docs/design.md), one instance each per host. */
export class BuiltinHooks {
  readonly cancellation = new CancellationHook();
  readonly metrics = new MetricsHook();
  readonly auditLog: AuditLogHook;
  readonly turnStats = new TurnStatsHook();
  readonly sessionSummary: SessionSummaryHook;
  readonly errorReport: ErrorReportHook;
  readonly responseValidation = new ResponseValidationHook();
  readonly autoCommit: AutoCommitHook;

  constructor(deps: BuiltinHookDeps) {
    this.auditLog = new AuditLogHook(deps.audit);
    this.sessionSummary = new SessionSummaryHook(deps.storageDir, deps.redact);
    this.errorReport = new ErrorReportHook(deps.reportError);
    this.autoCommit = new AutoCommitHook(deps.audit, deps.writableRoots ?? (() => []), deps.secretEnvNames);
  }

  all(): AgentHook[] {
    return [
      this.cancellation,
      this.metrics,
      this.auditLog,
      this.turnStats,
      this.sessionSummary,
      this.errorReport,
      this.responseValidation,
      this.autoCommit,
    ];
  }
}
