import type { Received } from '../../src/shared/wire-common';

/** The object VS Code injects into a webview; `acquireVsCodeApi` may be called once. */
interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/**
 * The webview's end of the postMessage channel: typed outgoing messages, incoming ones
 * checked with the protocol's schema (a malformed message is logged and dropped).
 */
export class HostChannel<Out, In> {
  private readonly api: VsCodeApi = acquireVsCodeApi();

  post(message: Out): void {
    this.api.postMessage(message);
  }

  listen(receive: (raw: unknown) => Received<In>, handle: (message: In) => void): void {
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      const received = receive(event.data);
      if (received.ok) handle(received.message);
      else console.warn(`[hookpilot] ${received.error}`);
    });
  }

  /** Webview state survives hiding and reloads; keep it tiny (it is serialized on every set). */
  savedState<S>(read: (raw: unknown) => S | undefined): S | undefined {
    return read(this.api.getState());
  }

  saveState(state: unknown): void {
    this.api.setState(state);
  }
}
