import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { SCRIPTED_MODEL_ID, text, toolCalls } from '../support/model-server';

// The model writes the command a person approves: on a real terminal (`script` gives the CLI a
// pseudo-terminal), it must not be able to redraw the prompt or hide the tail of its command.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs `hookpilot run` on a pseudo-terminal, answering `answer` at the first approval question. */
function runOnTerminal(args: string[], answer: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, bundle.bundle, 'run', ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const { dir } = bed!.workspace;
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: dir, env: bed!.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit; output so far:\n${output}`));
    }, 25_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!answered && output.includes('Allow? [y]es once')) {
        answered = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the terminal approval prompt', () => {
  it('shows the command whole and escaped: no escape sequence reaches the terminal, no tail is clipped', async () => {
    const command = `touch ../hp-prompt-mark #\x1b[2K\r\x1b[1A\x1b[2K  Run: git status${' '.repeat(250)}\x1b[8m; echo tail-visible`;
    bed = await startTestbed(bundle.bundle, {}, [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command } }]), text('done')]);
    const args = ['do it', '--cwd', bed.workspace.dir, '--base-url', bed.server.url, '--model', SCRIPTED_MODEL_ID];
    args.push('--output-format', 'json');
    const { code, output } = await runOnTerminal(args, 'n');
    expect(code).toBe(0);
    const prompt = output.slice(output.indexOf('Hookpilot wants to use Bash'), output.indexOf('Allow? [y]es once'));
    expect(prompt).not.toContain('\x1b');
    // The pseudo-terminal writes each newline as \r\n: any other carriage return came from the model.
    expect(prompt).not.toMatch(/\r(?!\n)/);
    const escaped = 'Run: touch ../hp-prompt-mark #\\e[2K\\r\\e[1A\\e[2K  Run: git status ⟨250 spaces⟩ \\e[8m; echo tail-visible';
    expect(prompt).toContain(escaped);
    expect(prompt).toContain(`(the whole command, ${command.length} characters)`);
    expect(existsSync(bed.workspace.file('../hp-prompt-mark'))).toBe(false);
  });
});
