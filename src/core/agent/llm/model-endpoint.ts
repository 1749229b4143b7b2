/** Where the model is and how to reach it. */
export interface ModelEndpoint {
  baseURL: string;
  model: string;
  /** Absent for a server on this machine that needs none. */
  apiKey?: string;
}

/** Why no endpoint can be used; each host words it for its own surface (usage error, setup panel). */
export type EndpointProblem =
  | { kind: 'no-base-url' }
  | { kind: 'not-a-url'; baseURL: string }
  | { kind: 'not-http'; baseURL: string }
  | { kind: 'no-model'; baseURL: string }
  | { kind: 'no-api-key'; baseURL: string };

export type EndpointCheck = { ok: true; endpoint: ModelEndpoint } | { ok: false; problem: EndpointProblem };

/** What a host found in its flags, settings, secret store or environment; empty means unset. */
export interface EndpointInput {
  baseURL: string | undefined;
  model: string | undefined;
  apiKey: string | undefined;
}

/** The one set of rules: a URL, http or https, a model named, and a key unless the server is on this machine. */
export function checkModelEndpoint({ baseURL, model, apiKey }: EndpointInput): EndpointCheck {
  if (!baseURL) return { ok: false, problem: { kind: 'no-base-url' } };
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return { ok: false, problem: { kind: 'not-a-url', baseURL } };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: { kind: 'not-http', baseURL } };
  if (!model) return { ok: false, problem: { kind: 'no-model', baseURL } };
  if (!apiKey && !isLoopbackUrl(url)) return { ok: false, problem: { kind: 'no-api-key', baseURL } };
  return { ok: true, endpoint: apiKey ? { baseURL, model, apiKey } : { baseURL, model } };
}

/** localhost, ::1 or 127.x.y.z: a server that never sees traffic leave the machine. */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
