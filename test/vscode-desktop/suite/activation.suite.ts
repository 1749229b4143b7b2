import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import { EXTENSION_ID, hookpilotExtension } from './extension-under-test';

suite('activation', () => {
  test(`${EXTENSION_ID} is loaded from the development path`, () => {
    const extension = hookpilotExtension();
    assert.equal(extension.id, EXTENSION_ID);
  });

  test('activates without throwing', async () => {
    const extension = hookpilotExtension();
    await extension.activate();
    assert.equal(extension.isActive, true);
  });
});
