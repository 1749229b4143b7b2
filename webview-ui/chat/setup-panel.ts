import type { ModelStatus } from '../../src/shared/chat-protocol';
import type { ModelPreset, ModelPresetId } from '../../src/shared/model-presets';
import { button, h, icon } from '../common/dom';

export interface SetupActions {
  configureModel(preset: ModelPresetId): void;
  setApiKey(): void;
  replayDemo(): void;
}

type Unconfigured = Extract<ModelStatus, { configured: false }>;

/** Shown instead of the chat while no model is usable: the three ways to get one. */
export function renderSetupPanel(status: Unconfigured, actions: SetupActions): HTMLElement {
  return h(
    'section',
    { class: 'setup-panel', attrs: { 'data-testid': 'setup-panel' } },
    h('h2', {}, icon('plug'), ' Connect a model'),
    h('p', { class: 'setup-problem', text: status.problem }),
    status.demoReplay ? demoCard(actions) : null,
    h('p', { class: 'setup-hint', text: 'Hookpilot talks to any OpenAI-compatible endpoint. Pick one:' }),
    ...status.presets.map((preset) => presetCard(preset, actions)),
  );
}

/** See the hooks at work before connecting anything: the workspace's recorded session, replayed. */
function demoCard(actions: SetupActions): HTMLElement {
  return h(
    'div',
    { class: 'setup-preset setup-demo', attrs: { 'data-testid': 'setup-demo' } },
    h('h3', { text: 'See it work first' }),
    h('p', {
      text:
        "This workspace ships a recorded session. Replaying it sends the recorded model replies through this workspace's real hooks " +
        '(in a scratch copy: your files stay as they are). It is labelled as a replay; no model is called.',
    }),
    h(
      'div',
      { class: 'setup-buttons' },
      button('Replay the demo session', () => actions.replayDemo(), { icon: 'debug-rerun', testId: 'replay-demo' }),
    ),
  );
}

function presetCard(preset: ModelPreset, actions: SetupActions): HTMLElement {
  return h(
    'div',
    { class: 'setup-preset', attrs: { 'data-preset': preset.id } },
    h('h3', { text: preset.label }),
    h('ol', {}, ...preset.steps.map((step) => h('li', { text: step }))),
    h('div', { class: 'setup-details', text: `${preset.baseUrl} · ${preset.defaultModel}` }),
    h(
      'div',
      { class: 'setup-buttons' },
      button(`Use ${preset.label}`, () => actions.configureModel(preset.id), { testId: `use-${preset.id}` }),
      preset.needsApiKey
        ? button('Set API key…', () => actions.setApiKey(), { secondary: true, icon: 'key', testId: `key-${preset.id}` })
        : null,
    ),
  );
}
