// The address the server names itself by in what it sends out (a file's `url`, in answers and in
// the events that reach webhooks and realtime): the configured public URL (`--public-url`, for a
// server behind a proxy or balancer), else the address and port the connection reached on this
// server's own socket. Never the request's `Host` header: a client chooses that, and any IP
// literal passes the DNS-rebinding guard, so it would let anyone plant an address of their
// choosing in URLs that other parties (webhook receivers, realtime subscribers) follow.
import type { Request } from 'express';
import { ConfigError, type ServerConfig } from './config.js';

/** Checks and normalises a public URL option: http(s), no query or fragment, no trailing slash. */
export function normalisePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let u: URL;
  try { u = new URL(value); } catch { throw new ConfigError(`publicUrl must be an absolute http(s) URL such as https://homebase.example.com (got ${JSON.stringify(value)})`); }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash || u.username || u.password) {
    throw new ConfigError(`publicUrl must be an http(s) URL without credentials, query or fragment (got ${JSON.stringify(value)})`);
  }
  return `${u.origin}${u.pathname}`.replace(/\/+$/, '');
}

/** `host:port` as a URL writes it (IPv6 in brackets, an IPv4-mapped address as plain IPv4). */
function hostPort(address: string, port: number): string {
  const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  return `${plain.includes(':') ? `[${plain}]` : plain}:${port}`;
}

/** The server's own `{console_url}` for a request: the public URL, or the local end of the
 *  request's connection. */
export function ownOrigin(req: Request | undefined, config: ServerConfig): string {
  if (config.publicUrl) return config.publicUrl;
  const socket = req?.socket;
  if (socket?.localAddress && socket.localPort) return `http://${hostPort(socket.localAddress, socket.localPort)}`;
  return `http://${hostPort(config.host, config.port)}`;
}

/** `{base_url}` (the console URL plus `/api`) as the server names itself. */
export function ownApiBase(req: Request | undefined, config: ServerConfig): string {
  return `${ownOrigin(req, config)}/api`;
}
