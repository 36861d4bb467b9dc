import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createLogger, defaultLogFormat, lazyChild, REDACT_PATHS } from './index.js';

describe('log redaction', () => {
  it('never writes passwords, tokens, keys or session headers', () => {
    let out = '';
    const sink = new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } });
    const log = pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
    log.info({ password: 'hunter22', body: { password: 'PW-TWO', token: 'TOK-TWO' }, privateKey: 'KEY-MATERIAL', req: { headers: { 'zt-session': 'S3SS10N-V4LUE', authorization: 'Bearer 4UTH-V4LUE' } } }, 'login');
    for (const secret of ['hunter22', 'PW-TWO', 'TOK-TWO', 'KEY-MATERIAL', 'S3SS10N-V4LUE', '4UTH-V4LUE']) expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });
});

describe('trace ids in logs', () => {
  it('writes the active span\'s trace and span ids on each line, and none outside spans', () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(String(chunk))); cb(); } });
      const log = createLogger({ destination: sink });
      const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
      context.with(trace.setSpanContext(context.active(), spanContext), () => log.info('inside'));
      log.info('outside');
      expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: spanContext.traceId, span_id: spanContext.spanId });
      expect(lines[1]).not.toHaveProperty('trace_id');
    } finally {
      context.disable();
    }
  });
});

describe('log format', () => {
  const capture = (format: 'pretty' | 'json') => {
    let out = '';
    const sink = new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } });
    const log = createLogger({ format, destination: sink, name: 'auth' });
    log.info({ port: 50051, password: 'pw-secret' }, 'auth service listening');
    return out;
  };

  it('writes readable lines when pretty, with the secrets still redacted', () => {
    const out = capture('pretty');
    expect(out).toMatch(/INFO.*\(auth\).*auth service listening/);
    expect(out).toContain('port: 50051');
    expect(out).not.toContain('pw-secret');
    expect(() => JSON.parse(out)).toThrow();
  });

  it('writes one JSON object per line when json', () => {
    const line = JSON.parse(capture('json'));
    expect(line).toMatchObject({ msg: 'auth service listening', port: 50051, name: 'auth', password: '[redacted]' });
  });

  it('is readable on a terminal and JSON elsewhere by default', () => {
    expect(defaultLogFormat({ isTTY: true })).toBe('pretty');
    expect(defaultLogFormat({ isTTY: false })).toBe('json');
    expect(defaultLogFormat({})).toBe('json');
  });
});

describe('lazy child logger', () => {
  const capture = (level: string) => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
    const log = createLogger({ destination: sink, level }).child({ service: 'gateway' });
    let children = 0;
    const child = log.child.bind(log);
    log.child = ((...args: Parameters<typeof log.child>) => { children++; return child(...args); }) as typeof log.child;
    return { log, lines, children: () => children };
  };
  const withoutTime = (line: string) => line.replace(/"time":\d+,/, '');

  it('writes the lines the child would, bindings and redaction included', () => {
    const eager = capture('info');
    const lazy = capture('info');
    const write = (l: Pick<typeof eager.log, 'info' | 'warn' | 'debug'>) => {
      l.info({ route: '/x', token: 'T0KEN' }, 'request');
      l.warn('plain');
      l.debug('not at this level');
    };
    write(eager.log.child({ reqId: 'r-1' }));
    write(lazyChild(lazy.log, { reqId: 'r-1' }));
    expect(lazy.lines.map(withoutTime)).toEqual(eager.lines.map(withoutTime));
    expect(lazy.lines).toHaveLength(2);
    expect(lazy.lines[0]).toContain('"reqId":"r-1"');
    expect(lazy.lines[0]).not.toContain('T0KEN');
  });

  it('makes no child while nothing is written at the level set, and one for all it writes', () => {
    const { log, children } = capture('warn');
    const l = lazyChild(log, { reqId: 'r-2' });
    l.info('below the level');
    expect(l.isLevelEnabled('info')).toBe(false);
    expect(l.level).toBe('warn');
    expect(children()).toBe(0);
    l.warn('one');
    l.error('two');
    expect(children()).toBe(1);
    expect(l.bindings()).toMatchObject({ reqId: 'r-2', service: 'gateway' });
  });
});

describe('lines of the process logger', () => {
  it('are those of pino with the same redaction, for every kind of value', () => {
    const lines = (make: (sink: Writable) => Logger) => {
      const out: string[] = [];
      const sink = new Writable({ write(chunk, _enc, cb) { out.push(String(chunk).replace(/"time":\d+,/, '')); cb(); } });
      const log = make(sink).child({ service: 'gateway', reqId: 'r-"1"\n' });
      log.info({
        s: 'plain', q: 'quote " backslash \\ tab \t nul \u0000 é 😀 lone \ud800', n: 42, f: -0.5, nan: NaN, inf: Infinity, big: 10n,
        t: true, nil: null, undef: undefined, list: ['a', { password: 'PW-IN-LIST' }], password: 'PW-TOP',
        body: { password: 'PW-NESTED', name: 'kept' }, a: { b: { token: 'TOK-DEEP' } }, req: { headers: { authorization: 'Bearer X', host: 'h' } },
      }, 'message with "quotes"');
      log.warn('only a message');
      log.error(7);
      return out;
    };
    const ours = lines((sink) => createLogger({ destination: sink, level: 'info' }));
    const plain = lines((sink) => pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } }, sink));
    expect(ours).toEqual(plain);
    expect(ours[0]).not.toMatch(/PW-TOP|PW-NESTED|TOK-DEEP|Bearer X/);
  });
});
