import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ServiceError, problemBody, codeAnchor, type ErrorCode } from '../../../../lib/errors/index.js';
import { SPEC_CATALOGUE_ROWS } from './spec-catalogue.js';

describe('error catalogue', () => {
  it('has exactly the codes of SPEC.md, no more and no fewer', () => {
    expect(Object.keys(ERROR_CATALOGUE).sort()).toEqual(SPEC_CATALOGUE_ROWS.map(([code]) => code).sort());
  });

  it.each(SPEC_CATALOGUE_ROWS)('%s answers HTTP %s, retryable %s', (code, status, retryable) => {
    const entry = ERROR_CATALOGUE[code as ErrorCode];
    // ENGINE::UNAVAILABLE's row reads "503 (501 on /v1/browser)" and "yes (no when 501)".
    expect(String(entry.status)).toBe(status.split(' ')[0]);
    expect(entry.retryable ? 'yes' : 'no').toBe(retryable.split(' ')[0]);
    const error = new ServiceError(code as ErrorCode, 'detail');
    expect(error.status).toBe(entry.status);
    expect(error.retryable).toBe(entry.retryable);
  });

  it('builds the problem body with type and doc_url from DOCS_URL', () => {
    const body = problemBody(new ServiceError('ERR::UPSTREAM::CHALLENGE', 'blocked', { targetStatus: 403 }), {
      docsUrl: 'https://docs.example.test/',
      requestId: '01J0000000000000000000000A',
      instance: '/v1/scrape',
    });
    expect(body).toEqual({
      type: 'https://docs.example.test/errors#UPSTREAM_CHALLENGE',
      doc_url: 'https://docs.example.test/errors#UPSTREAM_CHALLENGE',
      title: ERROR_CATALOGUE['ERR::UPSTREAM::CHALLENGE'].title,
      status: 502,
      code: 'ERR::UPSTREAM::CHALLENGE',
      detail: 'blocked',
      retryable: true,
      request_id: '01J0000000000000000000000A',
      instance: '/v1/scrape',
      target_status: 403,
    });
  });

  it('uses the 501, not retryable, variant of ENGINE::UNAVAILABLE on the browser route only', () => {
    const error = new ServiceError('ERR::ENGINE::UNAVAILABLE');
    expect(problemBody(error, { docsUrl: 'https://d', browserRoute: true })).toMatchObject({ status: 501, retryable: false });
    expect(problemBody(error, { docsUrl: 'https://d' })).toMatchObject({ status: 503, retryable: true });
  });

  it('crosses the bus as data and comes out the same', () => {
    const original = new ServiceError('ERR::UPSTREAM::TIMEOUT', 'slow', {
      targetStatus: null,
      warnings: ['RENDER_DEGRADED'],
      diagnostics: { failed_at: 'response', budget_ms: 1000, elapsed_ms: 1001, hint: 'raise the budget' },
    });
    const copy = ServiceError.fromWire(JSON.parse(JSON.stringify(original.toWire())));
    expect(copy.code).toBe(original.code);
    expect(copy.detail).toBe('slow');
    expect(copy.warnings).toEqual(['RENDER_DEGRADED']);
    expect(copy.diagnostics).toEqual(original.diagnostics);
  });

  it('names anchors as FAMILY_NAME', () => {
    expect(codeAnchor('ERR::AUTH::MISSING_KEY')).toBe('AUTH_MISSING_KEY');
  });
});
