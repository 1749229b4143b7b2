/** The hook event catalogue as the webviews see it (they import from src/shared only). */
export { EVENT_INFO, HOOK_EVENTS, type EventKind, type HookEventName } from '../core/hooks/events';
