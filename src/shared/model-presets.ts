import * as z from 'zod';

/**
 * The three ways to get a model running that the setup panel offers. The host applies a
 * preset's base URL and model to its settings when the user picks it (`configureModel`);
 * the API key never passes through the webview (`setApiKey` makes the host prompt for it).
 */
export const modelPresetIdSchema = z.enum(['openai', 'ollama', 'lmstudio']);
export type ModelPresetId = z.infer<typeof modelPresetIdSchema>;

export const modelPresetSchema = z.object({
  id: modelPresetIdSchema,
  label: z.string(),
  baseUrl: z.string(),
  /** A model name to start with; the user can change it in the settings. */
  defaultModel: z.string(),
  needsApiKey: z.boolean(),
  /** What to do, in order, as the setup panel lists it. */
  steps: z.array(z.string()),
});
export type ModelPreset = z.infer<typeof modelPresetSchema>;

export const MODEL_PRESETS: readonly ModelPreset[] = [
  {
    id: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    defaultModel: 'gpt-4.1',
    needsApiKey: true,
    steps: [
      'Create an API key at platform.openai.com (API keys).',
      'Click "Use OpenAI", then "Set API key…" and paste the key. It is kept in VS Code\'s secret storage.',
    ],
  },
  {
    id: 'ollama',
    label: 'Ollama',
    baseUrl: 'http://localhost:11434/v1',
    defaultModel: 'qwen2.5-coder:7b',
    needsApiKey: false,
    steps: [
      'Install Ollama from ollama.com and start it.',
      'In a terminal, run: ollama pull qwen2.5-coder:7b',
      'Click "Use Ollama". No API key is needed.',
    ],
  },
  {
    id: 'lmstudio',
    label: 'LM Studio',
    baseUrl: 'http://localhost:1234/v1',
    defaultModel: 'qwen2.5-coder-7b-instruct',
    needsApiKey: false,
    steps: [
      'Install LM Studio from lmstudio.ai and download a model that supports tool use.',
      'Open the Developer tab, load the model and start the server (port 1234).',
      'Click "Use LM Studio". No API key is needed.',
    ],
  },
];

export function modelPreset(id: ModelPresetId): ModelPreset {
  const preset = MODEL_PRESETS.find((p) => p.id === id);
  if (!preset) throw new Error(`unknown model preset ${id}`);
  return preset;
}
