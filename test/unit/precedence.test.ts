import { describe, expect, it } from 'vitest';
import { resolvePermission, type PermissionSignal } from '../../src/core/permissions/precedence';

const s = (verdict: PermissionSignal['verdict'], source = 'x'): PermissionSignal => ({
  verdict,
  source,
  reason: `${source} says ${verdict}`,
});
const implicitAllow = s('allow', 'implicit');

describe('permission precedence P0-P8', () => {
  it('P0 system deny beats everything, including a hook allow and allow rules', () => {
    const r = resolvePermission({
      system: s('deny', 'workspace'),
      toolRule: s('allow'),
      sessionRule: s('allow'),
      hook: s('allow', 'hook'),
      implicit: implicitAllow,
    });
    expect(r).toMatchObject({ verdict: 'deny', level: 'P0', system: true });
  });
  it('P1 tool deny rule beats a hook allow (a hook never overrides a system deny)', () => {
    expect(resolvePermission({ toolRule: s('deny', 'Bash(rm *)'), hook: s('allow', 'hook'), implicit: implicitAllow })).toMatchObject({
      verdict: 'deny',
      level: 'P1',
      system: true,
    });
  });
  it('P2 session deny beats hooks', () => {
    expect(resolvePermission({ sessionRule: s('deny'), hook: s('allow'), implicit: implicitAllow })).toMatchObject({
      verdict: 'deny',
      level: 'P2',
    });
  });
  it('P3 hook deny beats asks and allows', () => {
    expect(resolvePermission({ hook: s('deny', 'guard'), toolRule: s('allow'), implicit: implicitAllow })).toMatchObject({
      verdict: 'deny',
      level: 'P3',
      system: false,
      source: 'guard',
    });
  });
  it('P4 hook ask upgrades an allow rule to ask', () => {
    expect(resolvePermission({ hook: s('ask'), toolRule: s('allow'), implicit: implicitAllow })).toMatchObject({
      verdict: 'ask',
      level: 'P4',
    });
  });
  it('a system ask (protected path) needs a person even when a hook allows', () => {
    expect(resolvePermission({ system: s('ask', 'protected'), hook: s('allow'), implicit: implicitAllow })).toMatchObject({
      verdict: 'ask',
      level: 'P4',
      system: true,
    });
  });
  it('P5 session ask and P6 rule ask only upgrade allow to ask', () => {
    expect(resolvePermission({ sessionRule: s('ask'), implicit: implicitAllow })).toMatchObject({ verdict: 'ask', level: 'P5' });
    expect(resolvePermission({ toolRule: s('ask'), hook: s('allow'), implicit: implicitAllow })).toMatchObject({
      verdict: 'ask',
      level: 'P6',
    });
  });
  it('P7 an explicit allow (rule, session or hook) beats the implicit verdict', () => {
    expect(resolvePermission({ hook: s('allow', 'hook'), implicit: s('ask', 'default mode') })).toMatchObject({
      verdict: 'allow',
      level: 'P7',
      source: 'hook',
    });
  });
  it('P8 falls back to the implicit verdict of the mode', () => {
    expect(resolvePermission({ implicit: s('ask', 'default mode') })).toMatchObject({ verdict: 'ask', level: 'P8' });
  });
});
