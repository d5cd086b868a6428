/**
 * The admin spec's paginated list envelope `{ count, next, previous, results }` with limit and
 * offset query parameters; next/previous are absolute URLs keeping the other query parameters.
 * Pure apart from reading the request's URL and host.
 */
import type { BaseUrlPolicy } from './base-url.js';
import type { FastifyRequest } from 'fastify';
import { ValidationError, ValidationErrors } from '../../lib/errors.js';

/** Page size when limit is not given (the spec's sample links use 20). */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest accepted limit. */
export const MAX_PAGE_SIZE = 1000;

/** A page request. */
export interface Page {
  limit: number;
  offset: number;
  /** How the request named the page: limit/offset (default) or page/per_page; links follow it. */
  style?: 'offset' | 'page';
}

/** Options of parsePage. */
export interface PageOptions {
  /** Also accept page (from 1) and per_page, where the spec shows them; limit/offset win. */
  pageNumbers?: boolean;
}

/** The paginated list envelope of the admin spec. */
export interface PageEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/**
 * Reads limit (1..1000, default 20) and offset (>= 0, default 0), or with `pageNumbers` page
 * (from 1) and per_page (1..1000) when neither limit nor offset is given; errors name the parameter.
 */
export function parsePage(query: Record<string, unknown>, options: PageOptions = {}): Page {
  const errors: ValidationError[] = [];
  const numbered =
    options.pageNumbers === true &&
    query['limit'] === undefined &&
    query['offset'] === undefined &&
    (query['page'] !== undefined || query['per_page'] !== undefined);
  let page: Page;
  if (numbered) {
    const perPage = readInt(query, 'per_page', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE, errors);
    const number = readInt(query, 'page', 1, 1, Number.MAX_SAFE_INTEGER, errors);
    page = { limit: perPage, offset: (number - 1) * perPage, style: 'page' };
  } else {
    page = {
      limit: readInt(query, 'limit', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE, errors),
      offset: readInt(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, errors),
    };
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  return page;
}

function readInt(
  query: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  max: number,
  errors: ValidationError[],
): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    errors.push(new ValidationError(name, `must be an integer from ${min} to ${max}`));
  }
  return n;
}

/** The base URL of a request's absolute links (see BaseUrlPolicy). */
export function requestBaseUrl(request: FastifyRequest, base: BaseUrlPolicy): string {
  return base.forRequest(request);
}

/** Builds the envelope; next/previous keep the request's path and other query parameters. */
export function envelope<T>(
  request: FastifyRequest,
  base: BaseUrlPolicy,
  page: Page,
  count: number,
  results: T[],
): PageEnvelope<T> {
  const url = new URL(request.url, requestBaseUrl(request, base) + '/');
  const link = (offset: number): string => {
    const u = new URL(url);
    if (page.style === 'page') {
      u.searchParams.set('page', String(Math.floor(offset / page.limit) + 1));
      u.searchParams.set('per_page', String(page.limit));
    } else {
      u.searchParams.set('limit', String(page.limit));
      u.searchParams.set('offset', String(offset));
    }
    return u.toString();
  };
  return {
    count,
    next: page.offset + page.limit < count ? link(page.offset + page.limit) : null,
    previous: page.offset > 0 ? link(Math.max(0, page.offset - page.limit)) : null,
    results,
  };
}
