/**
 * Which fields of an MCP server's form ask for a credential, by the words of their name, title
 * and description. Its value is typed unseen, kept from the model and the logs, and hidden in
 * the server's own results (elicitation-content.ts's credentialValues).
 *
 * Form fields are not environment variables: a form asks for one-time codes, PINs, card numbers
 * and the answers to security questions, and often names a credential without holding it
 * (`secretName`, `tokenName`, "Issue key"), so the words are read here on their own terms.
 */
import type { ElicitationField } from './elicitation-content';

// Words that are a credential alone, or ending a longer word (`dbpassword`, `accesstoken`).
// `tokens` is left out: `maxTokens` counts a model's tokens.
const ALONE =
  '[a-z0-9]*(?:token|(?:password|passwd|passphrase|secret|credential|cookie)s?)|passwort|kennwort|pwd|passcode|pin|otp|totp|hotp|mfa|2fa|cvv2?|cvc2?|csc|mnemonic|jwt|bearer|authorization|basic ?auth|pat|dsn';
// `key` and `code` alone name many things (an issue key, a sort key, a zip code): only these make them credentials.
const KEY_QUALIFIER =
  'api|secret|private|access|signing|encryption|decryption|license|licence|master|recovery|product|activation|auth|client|ssh|gpg|pgp|session|app|subscription';
const CODE_QUALIFIER =
  'one ?time|two ?factor|single ?use|2fa|mfa|otp|totp|auth|authentication|authenticator|verification|security|backup|recovery|reset|sms|login|access|confirmation|activation';
const TERM = [
  ALONE,
  `(?:${KEY_QUALIFIER}) ?keys?`,
  `(?:${CODE_QUALIFIER}) ?codes?`,
  '(?:seed|recovery|wallet) ?(?:phrase|words)|(?:recovery|wallet) seed',
  'security (?:answer|question answer)|card number|connection string',
  // A webhook's URL is its secret.
  'webhook(?: url)?',
].join('|');
// What descriptions, being prose, name only when they ask for a credential.
const DESCRIPTION_TERM =
  'passwords?|passphrase|passcode|one time (?:codes?|pins?|tokens?)|authenticator|verification code|security code|api ?key|private ?key|secret ?key|access ?token';
// A word after the credential that makes the field describe it rather than hold it: `secretName`,
// `accessKeyId`, `seed_url`, `pin_version`, "Password hint"; or before it, in prose ("Name of the token").
const DESCRIBING =
  'names?|ids?|identifier|arn|urls?|uri|e ?mail|version|prefix|suffix|path|file ?name|file|dir|directory|folder|type|kind|count|length|size|format|hint|label|alias|ref|reference|expiry|expiration|lifetime|ttl|scopes?|field|policy|strength|rules?|reset|env|var|variable|location|provider|domain|limit|budget|usage|fingerprint|description|title|owner|index|status|mode|method';

// A few credential words may come before the describing one (`secret access key id`); a bound,
// so that a server's text of many such words costs a scan, not a scan per word.
const DESCRIBED = `(?: (?:${TERM})){0,3} (?:${DESCRIBING})(?![a-z0-9])`;
/** A credential word with no word that describes it after it, or before it with "of" or "for". */
const holding = (term: string) =>
  new RegExp(
    `(?<![a-z0-9])(?<!(?<![a-z0-9])(?:${DESCRIBING}) (?:of|for) (?:(?:the|your|an?|this) )?)(?:${term})(?![a-z0-9])(?!${DESCRIBED})`,
  );
const HOLDS = holding(TERM);
const DESCRIPTION_HOLDS = holding(DESCRIPTION_TERM);
const DESCRIBES = new RegExp(`(?<![a-z0-9])(?:${TERM})${DESCRIBED}`);

// What is read of a name, title or description: a form's words come first, and a server's
// megabytes of text would otherwise hold up the host each time a field is looked at.
const MAX_READ_CHARS = 2000;

/** Lowercase words separated by a space: `twoFactorCode` is "two factor code", "2FA code" "2fa code", `APIKey` "api key". */
function wordsOf(text: string): string {
  return text
    .slice(0, MAX_READ_CHARS)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
    .join(' ');
}

/**
 * A field whose value is a credential: its name or title names one in any spelling (`api_token`,
 * `secretAccessKey`, `twoFactorCode`, "GitHub token", "2FA code"), or, when neither names one as
 * a thing described (`secretName`, "Password hint"), its description asks for one ("the code from
 * your authenticator app").
 */
export function isCredentialField(field: Pick<ElicitationField, 'name' | 'title' | 'description'>): boolean {
  const labels = [field.name, field.title ?? ''].map(wordsOf);
  if (labels.some((words) => HOLDS.test(words))) return true;
  if (labels.some((words) => DESCRIBES.test(words))) return false;
  return DESCRIPTION_HOLDS.test(wordsOf(field.description ?? ''));
}
