import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { applyEdits, modify, parse as parseJsonc, type FormattingOptions } from 'jsonc-parser';
import { WORKSPACE_SETTINGS } from '../core/hooks/config/workspace-config-files';
import { PERMISSIONS_SETTING } from '../core/agent/permissions/permissions-setting';
import { settingValue } from '../core/hooks/config/setting-value';
import { readConfigText } from '../core/read-regular-file';
import { linkAmong } from '../core/agent/permissions/settings-links';

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/**
 * "Always allow": adds the rule to `hookpilot.permissions.allow` in the workspace's
 * .vscode/settings.json. Edits in place, so comments and formatting survive. Never through a
 * link: a repository's `.vscode` or settings.json that is one could lead the person's rule into
 * a file the prompt did not name (their user settings, which apply to every workspace).
 */
export async function persistAllowRule(projectDir: string, rule: string): Promise<void> {
  const file = path.join(projectDir, WORKSPACE_SETTINGS);
  const link = linkAmong([path.dirname(file), file]);
  if (link !== undefined) throw new Error(`${link} is a link; the rule is not written through it`);
  let text: string;
  try {
    text = readConfigText(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(path.dirname(file), { recursive: true });
    text = '{}\n';
  }
  const settings: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const permissions = isObject(settings) ? settingValue(settings, PERMISSIONS_SETTING) : undefined;
  const allow = isObject(permissions) ? permissions.allow : undefined;
  if (Array.isArray(allow) && allow.includes(rule)) return;
  const at = isObject(settings) ? permissionsPath(settings) : [PERMISSIONS_SETTING];
  const edits = Array.isArray(allow)
    ? modify(text, [...at, 'allow', -1], rule, { formattingOptions: FORMAT, isArrayInsertion: true })
    : modify(text, [...at, 'allow'], [rule], { formattingOptions: FORMAT });
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(applyEdits(text, edits));
  } finally {
    await handle.close();
  }
}

/**
 * Where the setting's value is written: VS Code's nested form when it comes after the flat key
 * (settingValue). A flat key added after a nested value would replace it, deny rules and all.
 */
function permissionsPath(settings: Record<string, unknown>): string[] {
  const keys = Object.keys(settings);
  const nested = isObject(settings.hookpilot) && settings.hookpilot.permissions !== undefined ? keys.indexOf('hookpilot') : -1;
  return nested > keys.indexOf(PERMISSIONS_SETTING) ? ['hookpilot', 'permissions'] : [PERMISSIONS_SETTING];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
