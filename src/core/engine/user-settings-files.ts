import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The settings files that apply as the user's beside VS Code's `User/settings.json`: each
 * profile's (`User/profiles/<id>/settings.json`) and, on a remote host, the machine's
 * (`Machine/settings.json` of VS Code Server's data folder). They apply live, in every
 * workspace, like the user's own. A file elsewhere (the CLI's HOOKPILOT_USER_SETTINGS) is alone.
 */
export function userSettingsFilesOf(userSettingsFile: string): string[] {
  const userDir = path.dirname(userSettingsFile);
  if (path.basename(userDir) !== 'User') return [userSettingsFile];
  let profiles: string[] = [];
  try {
    profiles = readdirSync(path.join(userDir, 'profiles')).map((id) => path.join(userDir, 'profiles', id, 'settings.json'));
  } catch {
    // No profiles.
  }
  return [userSettingsFile, ...profiles, path.join(path.dirname(userDir), 'Machine', 'settings.json')];
}
