import OpenAI from 'openai';
import type { ModelEndpoint } from './hookpilot-config';

const LIST_TIMEOUT_MS = 5_000;

/** The model ids the endpoint offers (GET /models), sorted; empty when it cannot be asked. */
export async function listEndpointModels(endpoint: Pick<ModelEndpoint, 'baseURL' | 'apiKey'>): Promise<string[]> {
  const client = new OpenAI({
    baseURL: endpoint.baseURL,
    apiKey: endpoint.apiKey || 'not-needed',
    maxRetries: 0,
    timeout: LIST_TIMEOUT_MS,
    logLevel: 'off',
  });
  try {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    return ids.sort((a, b) => a.localeCompare(b));
  } catch {
    return [];
  }
}
