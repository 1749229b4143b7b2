import net from 'node:net';

// Tests may only talk to this machine: any connection to another address fails loudly.
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;
const originalConnect = net.Socket.prototype.connect;

function hostOf(args: unknown[]): string | undefined {
  const first = args[0];
  if (Array.isArray(first)) return hostOf(first);
  if (first && typeof first === 'object') {
    const o = first as { host?: string; path?: string };
    if (o.path) return undefined;
    return o.host ?? 'localhost';
  }
  if (typeof first === 'number') return typeof args[1] === 'string' ? args[1] : 'localhost';
  return undefined;
}

net.Socket.prototype.connect = function patchedConnect(this: net.Socket, ...args: unknown[]) {
  const host = hostOf(args);
  if (host !== undefined && !LOOPBACK.test(host)) {
    throw new Error(`test tried to reach ${host}: only loopback addresses are allowed in tests`);
  }
  return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;
