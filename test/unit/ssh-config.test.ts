// ~/.ssh/config resolution: aliases, HostName with %h, User, Port, IdentityFile with tokens and defaults,
// ProxyJump chains (and loops), UserKnownHostsFile, first match wins, Include, overrides from the cluster's settings,
// Match exec never run.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SshError } from '../../runners/ssh/errors.js';
import {
  describeHost,
  loadSshConfig,
  parseDestination,
  parseSshConfig,
  resolveHost,
  type Environment,
} from '../../runners/ssh/ssh-config.js';

const env: Environment = { home: '/home/ana', localUser: 'ana', localHost: 'desk' };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-ssh-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const config = parseSshConfig(
  `
Host das3 das3-*
  HostName fs0.%h.example.org
  User koala
  Port 2222
  IdentityFile ~/.ssh/id_das3
  IdentityFile %d/keys/%r@%h:%p

Host inner
  HostName 10.1.0.5
  ProxyJump das3

Host deep
  HostName 10.2.0.9
  ProxyJump bob@gate:2200,inner

Host gate
  HostName gate.example.org

Host loop-a
  ProxyJump loop-b
Host loop-b
  ProxyJump loop-a

Host noagent
  IdentitiesOnly yes
  IdentityAgent none

Host proxied
  ProxyCommand nc %h %p

Host *
  User everyone
  Port 22
`,
  'test-config',
);

describe('resolveHost', () => {
  it('applies the first value matched for each keyword, expanding tokens', () => {
    const host = resolveHost(config, 'das3', {}, env);
    expect(host).toMatchObject({
      alias: 'das3',
      hostName: 'fs0.das3.example.org',
      user: 'koala',
      port: 2222,
      identityFilesExplicit: true,
      proxyJump: [],
    });
    expect(host.identityFiles).toEqual(['/home/ana/.ssh/id_das3', '/home/ana/keys/koala@fs0.das3.example.org:2222']);
  });

  it('falls back to Host * and the defaults for a name without a section', () => {
    const host = resolveHost(config, 'plain.example.org', {}, env);
    expect(host).toMatchObject({
      hostName: 'plain.example.org',
      user: 'everyone',
      port: 22,
      identityFilesExplicit: false,
      identitiesOnly: false,
    });
    expect(host.identityFiles).toEqual([
      '/home/ana/.ssh/id_ed25519',
      '/home/ana/.ssh/id_ecdsa',
      '/home/ana/.ssh/id_rsa',
    ]);
    expect(resolveHost(parseSshConfig(''), 'h', {}, env)).toMatchObject({ user: 'ana', port: 22 });
  });

  it('takes user@ and :port from the destination, and the cluster settings over everything', () => {
    expect(resolveHost(config, 'me@das3-x:2022', {}, env)).toMatchObject({
      hostName: 'fs0.das3-x.example.org',
      user: 'me',
      port: 2022,
    });
    const host = resolveHost(
      config,
      'das3',
      { hostName: '127.0.0.1', user: 'test', port: 40022, identityFile: '/keys/k', proxyJump: 'none' },
      env,
    );
    expect(host).toMatchObject({
      hostName: '127.0.0.1',
      user: 'test',
      port: 40022,
      identityFiles: ['/keys/k'],
      proxyJump: [],
    });
  });

  it('resolves each ProxyJump hop through the config, the first hop first', () => {
    const inner = resolveHost(config, 'inner', {}, env);
    expect(inner.proxyJump.map((h) => `${h.user}@${h.hostName}:${h.port}`)).toEqual([
      'koala@fs0.das3.example.org:2222',
    ]);
    // deep: bob@gate:2200 then inner; inner's own ProxyJump is replaced by the list, as ssh -J does.
    const deep = resolveHost(config, 'deep', {}, env);
    expect(deep.proxyJump.map((h) => `${h.user}@${h.hostName}:${h.port}`)).toEqual([
      'bob@gate.example.org:2200',
      'everyone@10.1.0.5:22',
    ]);
    expect(describeHost(deep)).toBe('everyone@10.2.0.9:22 via bob@gate.example.org:2200, everyone@10.1.0.5:22');
  });

  it('refuses a ProxyJump loop and ProxyCommand with a clear error', () => {
    expect(() => resolveHost(config, 'loop-a', {}, env)).toThrow(/ProxyJump loop/);
    expect(() => resolveHost(config, 'proxied', {}, env)).toThrow(/ProxyCommand is not supported/);
  });

  it('reads IdentitiesOnly and IdentityAgent', () => {
    expect(resolveHost(config, 'noagent', {}, env)).toMatchObject({ identitiesOnly: true, identityAgent: 'none' });
  });

  it('names the file and host of a bad value', () => {
    const bad = parseSshConfig('Host x\n  Port 99999\nHost y\n  IdentityFile ~/%z\n', 'cfg');
    expect(() => resolveHost(bad, 'x', {}, env)).toThrow('cfg: Host x: Port must be 1..65535 (got "99999")');
    expect(() => resolveHost(bad, 'y', {}, env)).toThrow(/token %z/);
    expect(() => resolveHost(bad, 'a b', {}, env)).toThrow(SshError);
  });

  it('reads UserKnownHostsFile: several files, tokens and ~ expanded; none for no file; unset when not given', () => {
    const loaded = parseSshConfig(
      'Host kh\n  UserKnownHostsFile ~/.ssh/kh_%h "%d/with space"\nHost nokh\n  UserKnownHostsFile none\n',
      'kh-config',
    );
    expect(resolveHost(loaded, 'kh', {}, env).userKnownHostsFiles).toEqual([
      '/home/ana/.ssh/kh_kh',
      '/home/ana/with space',
    ]);
    expect(resolveHost(loaded, 'nokh', {}, env).userKnownHostsFiles).toEqual([]);
    expect(resolveHost(loaded, 'other', {}, env).userKnownHostsFiles).toBeUndefined();
  });

  it('never runs Match exec', () => {
    const marker = path.join(tmp, 'exec-ran');
    const withExec = parseSshConfig(`Match exec "touch ${marker}"\n  User hacked\n`, 'cfg');
    expect(resolveHost(withExec, 'h', {}, env).user).toBe('ana');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('parseDestination', () => {
  it('reads [user@]host[:port], IPv6 in brackets and ssh:// URIs', () => {
    expect(parseDestination('h', 'd')).toEqual({ host: 'h' });
    expect(parseDestination('u@h:2200', 'd')).toEqual({ host: 'h', user: 'u', port: 2200 });
    expect(parseDestination('[::1]:2222', 'd')).toEqual({ host: '::1', port: 2222 });
    expect(parseDestination('ssh://u@h', 'd')).toEqual({ host: 'h', user: 'u' });
    expect(() => parseDestination('u@h:0', 'd')).toThrow(/Port must be/);
  });
});

describe('loadSshConfig', () => {
  it('follows Include with wildcards, relative to the config directory, in name order', async () => {
    const dir = path.join(tmp, 'dot-ssh');
    mkdirSync(path.join(dir, 'conf.d'), { recursive: true });
    writeFileSync(path.join(dir, 'config'), 'Include conf.d/*.conf missing.conf\nHost *\n  User fallback\n');
    writeFileSync(path.join(dir, 'conf.d', '20-b.conf'), 'Host lab\n  HostName second\n  Port 2\n');
    writeFileSync(path.join(dir, 'conf.d', '10-a.conf'), 'Host lab\n  HostName first\n');
    writeFileSync(path.join(dir, 'conf.d', 'ignored.txt'), 'Host lab\n  HostName wrong\n');
    const loaded = await loadSshConfig(path.join(dir, 'config'), env);
    expect(resolveHost(loaded, 'lab', {}, env)).toMatchObject({ hostName: 'first', port: 2, user: 'fallback' });
  });

  it('follows an Include inside a Host block only for that host, and refuses nested blocks there', async () => {
    const dir = path.join(tmp, 'inner-include');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config'), 'Host lab\n  Include lab.conf\n');
    writeFileSync(path.join(dir, 'lab.conf'), 'User labuser\n');
    const loaded = await loadSshConfig(path.join(dir, 'config'), env);
    expect(resolveHost(loaded, 'lab', {}, env).user).toBe('labuser');
    expect(resolveHost(loaded, 'other', {}, env).user).toBe('ana');
    writeFileSync(path.join(dir, 'lab.conf'), 'Host sneaky\n  User x\n');
    await expect(loadSshConfig(path.join(dir, 'config'), env)).rejects.toThrow(/has blocks of its own/);
  });

  it('treats a missing config as empty', async () => {
    const loaded = await loadSshConfig(path.join(tmp, 'nope', 'config'), env);
    expect(resolveHost(loaded, 'h', {}, env)).toMatchObject({ hostName: 'h', user: 'ana', port: 22 });
  });
});
