import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { REDACT_PATHS } from './index.js';

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
