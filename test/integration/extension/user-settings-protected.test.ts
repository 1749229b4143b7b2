import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Uri } from '../../support/vscode-stub-values';
import { startHost, type HostHarness } from './extension-harness';

let h: HostHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the user's settings.json in the extension", () => {
  it('is a protected path, found from the global storage folder, though it configures no hook yet', async () => {
    let userDir = '';
    h = await startHost(
      {},
      {
        setup: (context) => {
          // As VS Code lays it out: <userDataDir>/User/globalStorage/<publisher.name>.
          userDir = path.join(context.globalStorageUri.fsPath, 'Code', 'User');
          Object.assign(context, { globalStorageUri: Uri.file(path.join(userDir, 'globalStorage', 'hookpilot.hookpilot')) });
        },
      },
    );
    expect(h.root.engineHost.engine.protectedPaths()).toContain(path.join(userDir, 'settings.json'));
  });
});
