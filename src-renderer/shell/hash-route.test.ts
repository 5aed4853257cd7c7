import { describe, expect, it } from 'vitest';
import { hashOf, routeOf, type Route } from './hash-route';

describe('the address of a view', () => {
  it.each<[string, Route | null]>([
    ['', null],
    ['#', null],
    ['#/ledger', { view: 'ledger', runId: null }],
    ['#/offers', { view: 'offers', runId: null }],
    ['#/new', { view: 'composer', runId: null }],
    ['#/settings/', { view: 'settings', runId: null }],
    ['#/runs', { view: 'run', runId: null }],
    ['#/runs/r-k3x9a2mf', { view: 'run', runId: 'r-k3x9a2mf' }],
    ['#/runs/r-k3x9a2mf/', { view: 'run', runId: 'r-k3x9a2mf' }],
    ['#/runs/<script>', null],
    ['#/runs/r-x/../../ledger', null],
    ['#/token=abc', null],
    ['#/nowhere', null],
  ])('%s', (hash, route) => {
    expect(routeOf(hash)).toEqual(route);
  });

  it.each<Route>([
    { view: 'ledger', runId: null },
    { view: 'offers', runId: null },
    { view: 'composer', runId: null },
    { view: 'settings', runId: null },
    { view: 'run', runId: null },
    { view: 'run', runId: 'r-k3x9a2mf' },
  ])('round-trips %o', (route) => {
    expect(routeOf(hashOf(route))).toEqual(route);
  });
});
